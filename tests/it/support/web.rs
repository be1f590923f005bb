//! A browser's part for the page tests, over plain HTTP: the private link of a
//! spooled board mail, a session cookie kept by hand, forms with their CSRF token.

use std::path::Path;

use super::{Server, eventually, parse_mail, spool_files};

/// The private link (`…/games/<id>#sign-in=<seat>.<key>`) of `seat` in game
/// `game`, from its board mails in `spool` (waits for one). A board mail's
/// link signs the seat in for 14 days from the mail, while its address stays.
pub async fn sign_in_link(spool: &Path, game: &str, seat: &str) -> String {
    let wanted = format!("/games/{game}#sign-in={seat}.");
    eventually(&format!("a board mail with {seat}'s private link to game {game}"), || {
        spool_files(spool).into_iter().filter(|(name, _)| name.starts_with(game)).find_map(|(_, bytes)| {
            let mail = parse_mail(&bytes);
            mail.body.lines().map(str::trim).find(|l| l.contains(&wanted)).map(str::to_owned)
        })
    })
    .await
}

/// One browser: a client that follows no redirects, and its cookie.
pub struct Browser {
    pub base: String,
    pub client: reqwest::Client,
    pub cookie: Option<String>,
}

/// A page as fetched.
pub struct Page {
    pub status: u16,
    pub location: Option<String>,
    pub content_type: String,
    pub set_cookie: Option<String>,
    pub text: String,
}

impl Page {
    /// The CSRF token of the page's forms.
    #[track_caller]
    pub fn csrf(&self) -> String {
        let at = self.text.find("name=\"csrf\" value=\"").expect("a form with a CSRF token") + 19;
        self.text[at..].split('"').next().unwrap().to_owned()
    }
}

impl Browser {
    pub fn new(server: &Server) -> Browser {
        let client = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client");
        Browser { base: server.base.clone(), client, cookie: None }
    }

    async fn send(&mut self, req: reqwest::RequestBuilder) -> Page {
        let req = match &self.cookie {
            Some(c) => req.header("Cookie", c),
            None => req,
        };
        let resp = req.send().await.expect("the steward answers");
        let header = |n: &str| resp.headers().get(n).map(|v| v.to_str().unwrap().to_owned());
        let (location, content_type, set_cookie) = (header("location"), header("content-type"), header("set-cookie"));
        if let Some(c) = &set_cookie {
            let pair = c.split(';').next().unwrap().to_owned();
            self.cookie = if pair.ends_with('=') { None } else { Some(pair) };
        }
        let status = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        Page { status, location, content_type: content_type.unwrap_or_default(), set_cookie, text }
    }

    pub async fn get(&mut self, path: &str) -> Page {
        let req = self.client.get(format!("{}{path}", self.base));
        self.send(req).await
    }

    /// Posts a form as a page of this steward would (same origin).
    pub async fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let origin = self.base.clone();
        self.post_from(path, fields, &origin).await
    }

    /// Posts a form with the given `Origin`.
    pub async fn post_from(&mut self, path: &str, fields: &[(&str, &str)], origin: &str) -> Page {
        let body = serde_urlencoded::to_string(fields).unwrap();
        let req = self
            .client
            .post(format!("{}{path}", self.base))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Origin", origin)
            .body(body);
        self.send(req).await
    }

    /// Follows a board mail's private link as the page's script does: posts
    /// the fragment's seat and key, keeps the cookie; returns the page it
    /// leads to.
    pub async fn open_link(&mut self, link: &str) -> Page {
        let (url, fragment) = link.split_once("#sign-in=").expect("a private link");
        let path = url.strip_prefix(&self.base).expect("a link to this steward");
        let (seat, key) = fragment.rsplit_once('.').unwrap();
        let answer = self.post(&format!("{path}/sign-in"), &[("seat", seat), ("key", key)]).await;
        assert_eq!(answer.status, 303, "signing in: {}", answer.text);
        assert!(self.cookie.is_some(), "a session cookie is set");
        let to = answer.location.unwrap();
        self.get(&to).await
    }
}
