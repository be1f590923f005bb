//! A small W3C WebDriver client: Debian's `chromedriver` driving headless
//! Chromium, plain JSON over HTTP (reqwest). Enough to open pages, click, type,
//! read and take screenshots; no Selenium and no downloaded browser.
//!
//! `scripts/test` installs `chromium` and `chromium-driver`; without them the
//! browser tests fail, naming it.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The WebDriver's key for an element reference.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A running chromedriver and one Chromium session on it; both end on drop.
pub struct Chromium {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::Client,
    _profile: tempfile::TempDir,
    /// Where screenshots go.
    pub shots: PathBuf,
}

fn find(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().flat_map(|n| std::env::split_paths(&path).map(move |d| d.join(n))).find(|p| p.is_file())
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Chromium {
    /// Starts chromedriver on a loopback port and a headless Chromium session
    /// with a fresh profile, its window `width` × `height` CSS pixels.
    pub async fn start(width: u32, height: u32, shots: &Path) -> Chromium {
        let driver = find(&["chromedriver"]).expect(
            "chromedriver is not installed: run scripts/test (it installs Debian's chromium and chromium-driver)",
        );
        let browser = find(&["chromium", "chromium-browser"])
            .expect("chromium is not installed: run scripts/test (it installs Debian's chromium and chromium-driver)");
        let port = free_port();
        let child = Command::new(driver)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::Client::builder().no_proxy().timeout(Duration::from_secs(60)).build().unwrap();
        let started = Instant::now();
        loop {
            if let Ok(r) = http.get(format!("{base}/status")).send().await
                && r.json::<Value>().await.is_ok_and(|v| v["value"]["ready"] == true)
            {
                break;
            }
            assert!(started.elapsed() < Duration::from_secs(20), "chromedriver did not become ready");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile = tempfile::tempdir().unwrap();
        let args = vec![
            "--headless".to_owned(),
            "--no-sandbox".to_owned(),
            "--disable-gpu".to_owned(),
            "--disable-quic".to_owned(),
            "--no-first-run".to_owned(),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--disable-dev-shm-usage".to_owned(),
            "--hide-scrollbars".to_owned(),
            format!("--user-data-dir={}", profile.path().display()),
            format!("--window-size={width},{height}"),
        ];
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": browser, "args": args},
        }}});
        let answer: Value =
            http.post(format!("{base}/session")).json(&caps).send().await.unwrap().json().await.unwrap();
        let session = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no WebDriver session: {answer}"))
            .to_owned();
        std::fs::create_dir_all(shots).unwrap();
        let mut c = Chromium { driver: child, base, session, http, _profile: profile, shots: shots.to_owned() };
        c.window(width, height).await;
        c
    }

    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut req = self.http.request(method, &url);
        if let Some(b) = body {
            req = req.json(&b);
        }
        let v: Value = req.send().await.unwrap().json().await.unwrap();
        if v["value"].get("error").is_some() {
            panic!("WebDriver {path}: {}", v["value"]);
        }
        v["value"].clone()
    }

    /// Sets the window's size (the viewport of a phone, say).
    pub async fn window(&mut self, width: u32, height: u32) {
        self.call(reqwest::Method::POST, "/window/rect", Some(json!({"width": width, "height": height}))).await;
    }

    /// Opens `url` and waits for the page to load.
    pub async fn open(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", Some(json!({"url": url}))).await;
    }

    /// The address now in the address bar.
    pub async fn url(&self) -> String {
        self.call(reqwest::Method::GET, "/url", None).await.as_str().unwrap().to_owned()
    }

    /// Goes one step back in the history.
    pub async fn back(&self) {
        self.call(reqwest::Method::POST, "/back", Some(json!({}))).await;
    }

    /// The page's HTML as the browser has it now.
    pub async fn source(&self) -> String {
        self.call(reqwest::Method::GET, "/source", None).await.as_str().unwrap().to_owned()
    }

    /// Runs `script` (a function body) with `args`; its result.
    pub async fn script(&self, script: &str, args: Value) -> Value {
        self.call(reqwest::Method::POST, "/execute/sync", Some(json!({"script": script, "args": args}))).await
    }

    /// Forgets every cookie (a new visitor).
    pub async fn clear_cookies(&self) {
        self.call(reqwest::Method::DELETE, "/cookie", None).await;
    }

    /// The cookies the page's scripts may see (the session is HttpOnly: not one).
    pub async fn document_cookie(&self) -> String {
        self.script("return document.cookie;", json!([])).await.as_str().unwrap_or_default().to_owned()
    }

    /// The first element matching `css`, waiting up to 10 s for it.
    pub async fn element(&self, css: &str) -> String {
        let started = Instant::now();
        loop {
            let url = format!("{}/session/{}/element", self.base, self.session);
            let v: Value = self
                .http
                .post(&url)
                .json(&json!({"using": "css selector", "value": css}))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            if let Some(id) = v["value"][ELEMENT].as_str() {
                return id.to_owned();
            }
            assert!(started.elapsed() < Duration::from_secs(10), "no element {css} on {}: {v}", self.url().await);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Clicks the element matching `css` (as a mouse would, at its middle).
    pub async fn click(&self, css: &str) {
        let id = self.element(css).await;
        self.call(reqwest::Method::POST, &format!("/element/{id}/click"), Some(json!({}))).await;
    }

    /// Presses `key` (a WebDriver key code such as "\u{E007}" for Enter) on the
    /// focused element.
    pub async fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key},
        ]}]});
        self.call(reqwest::Method::POST, "/actions", Some(actions)).await;
    }

    /// The `class` attribute of the element matching `css`.
    pub async fn classes(&self, css: &str) -> String {
        let id = self.element(css).await;
        self.call(reqwest::Method::GET, &format!("/element/{id}/attribute/class"), None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The value of the form field matching `css`.
    pub async fn value(&self, css: &str) -> String {
        let id = self.element(css).await;
        self.call(reqwest::Method::GET, &format!("/element/{id}/property/value"), None)
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The visible text of the page's body.
    pub async fn text(&self) -> String {
        self.script("return document.body.innerText;", json!([])).await.as_str().unwrap_or_default().to_owned()
    }

    /// Waits up to 10 s for the page's text to hold `needle`.
    pub async fn wait_for_text(&self, needle: &str) {
        let started = Instant::now();
        loop {
            if self.text().await.contains(needle) {
                return;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "the page at {} never said {needle:?}; it says:\n{}",
                self.url().await,
                self.text().await
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Saves a screenshot of the viewport as `<name>.png` in [`Chromium::shots`].
    pub async fn screenshot(&self, name: &str) -> PathBuf {
        use base64::Engine as _;
        let data = self.call(reqwest::Method::GET, "/screenshot", None).await;
        let png = base64::engine::general_purpose::STANDARD.decode(data.as_str().unwrap()).unwrap();
        let path = self.shots.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }

    /// Saves a screenshot of the whole page (scrolled, not only the viewport)
    /// through the DevTools protocol, as `<name>.png`.
    pub async fn full_screenshot(&self, name: &str) -> PathBuf {
        use base64::Engine as _;
        let url = format!("{}/session/{}/goog/cdp/execute", self.base, self.session);
        let v: Value = self
            .http
            .post(&url)
            .json(&json!({"cmd": "Page.captureScreenshot", "params": {"captureBeyondViewport": true}}))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let data = v["value"]["data"].as_str().unwrap_or_else(|| panic!("no screenshot: {v}"));
        let png = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
        let path = self.shots.join(format!("{name}.png"));
        std::fs::write(&path, png).unwrap();
        path
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        // Ends the session, which closes Chromium, then the driver. A plain
        // HTTP request: drop cannot wait on the async client.
        use std::io::{Read, Write};
        let addr = self.base.trim_start_matches("http://").to_owned();
        if let Ok(mut stream) = std::net::TcpStream::connect(&addr) {
            let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
            let request = format!(
                "DELETE /session/{} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                self.session
            );
            let _ = stream.write_all(request.as_bytes());
            let _ = stream.read_to_end(&mut Vec::new());
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
