//! GnuPG and RNP driven as a player drives them (issue 33): throw-away homes,
//! keys of the common kinds, and the signed, encrypted, and signed-and-encrypted
//! messages their mail clients put into replies. Real binaries, never mocks: a
//! missing one fails the test, saying to run scripts/test (which installs
//! Debian's gnupg and rnp).

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Fails (never skips) when a binary the tests need is missing.
#[track_caller]
pub fn need(bin: &str) {
    let found =
        Command::new("sh").arg("-c").arg(format!("command -v {bin}")).output().is_ok_and(|o| o.status.success());
    assert!(found, "{bin} is not installed: run scripts/test, which installs Debian's gnupg and rnp");
}

/// Runs `cmd` with `stdin`; its output, whether it succeeded or not.
pub fn output(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Runs `cmd` with `stdin`; asserts success and returns its stdout.
#[track_caller]
pub fn run(cmd: &mut Command, stdin: &[u8]) -> Vec<u8> {
    let out = output(cmd, stdin);
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// Armour with CRLF line ends, as it travels in a mail.
pub fn crlf(armored: &[u8]) -> String {
    String::from_utf8(armored.to_vec()).unwrap().replace("\r\n", "\n").replace('\n', "\r\n")
}

/// A throw-away GnuPG home.
pub struct Gpg {
    home: tempfile::TempDir,
}

impl Gpg {
    pub fn new() -> Gpg {
        need("gpg");
        Gpg { home: tempfile::tempdir().unwrap() }
    }

    pub fn cmd(&self) -> Command {
        let mut c = Command::new("gpg");
        c.env("GNUPGHOME", self.home.path()).args([
            "--batch",
            "--yes",
            "--pinentry-mode",
            "loopback",
            "--passphrase",
            "",
            "--trust-model",
            "always",
        ]);
        c
    }

    /// `gpg ARGS` with `stdin`, asserting success: its stdout.
    #[track_caller]
    pub fn ok(&self, args: &[&str], stdin: &[u8]) -> Vec<u8> {
        run(self.cmd().args(args), stdin)
    }

    /// A key for `uid` of `algo` (`ed25519`, `rsa3072`) that signs.
    pub fn key(&self, uid: &str, algo: &str) {
        run(self.cmd().args(["--quick-gen-key", uid, algo, "sign", "never"]), b"");
    }

    /// A certification-only ed25519 primary key with a separate signing subkey.
    pub fn key_with_signing_subkey(&self, uid: &str) {
        run(self.cmd().args(["--quick-gen-key", uid, "ed25519", "cert", "never"]), b"");
        let fpr = self.fingerprint(uid);
        run(self.cmd().args(["--quick-add-key", &fpr, "ed25519", "sign", "never"]), b"");
    }

    /// A key of GnuPG's default kind (Ed25519 + Cv25519) that signs and
    /// decrypts; its fingerprint.
    pub fn generate(&self, uid: &str) -> String {
        run(self.cmd().args(["--quick-gen-key", uid, "future-default", "default", "never"]), b"");
        self.fingerprint(uid)
    }

    pub fn fingerprint(&self, uid: &str) -> String {
        let text = String::from_utf8(run(self.cmd().args(["--with-colons", "--list-keys", uid]), b"")).unwrap();
        text.lines().find(|l| l.starts_with("fpr:")).unwrap().split(':').nth(9).unwrap().to_owned()
    }

    /// The fingerprint of a public key given as bytes (armoured or binary).
    pub fn fingerprint_of(&self, key: &[u8]) -> String {
        let text = String::from_utf8(run(self.cmd().args(["--with-colons", "--show-keys"]), key)).unwrap();
        text.lines().find(|l| l.starts_with("fpr:")).unwrap().split(':').nth(9).unwrap().to_owned()
    }

    pub fn export(&self, uid: &str) -> String {
        String::from_utf8(run(self.cmd().args(["--armor", "--export", uid]), b"")).unwrap()
    }

    pub fn export_secret(&self, uid: &str) -> Vec<u8> {
        run(self.cmd().args(["--armor", "--export-secret-keys", uid]), b"")
    }

    pub fn import(&self, key: &[u8]) {
        run(self.cmd().arg("--import"), key);
    }

    /// Copies the secret key of `uid` into `other` (which then signs with it
    /// even after this home revokes it: GnuPG refuses to sign with a revoked key).
    pub fn copy_secret_to(&self, uid: &str, other: &Gpg) {
        other.import(&self.export_secret(uid));
    }

    /// Imports the revocation certificate GnuPG made with the key.
    pub fn revoke(&self, uid: &str) {
        let fpr = self.fingerprint(uid);
        let rev =
            std::fs::read_to_string(self.home.path().join("openpgp-revocs.d").join(format!("{fpr}.rev"))).unwrap();
        // GnuPG guards the block with a leading ':' against an accidental import.
        let rev = rev.replace(":-----BEGIN PGP PUBLIC KEY BLOCK-----", "-----BEGIN PGP PUBLIC KEY BLOCK-----");
        self.import(rev.as_bytes());
    }

    pub fn detach_sign(&self, uid: &str, bytes: &[u8]) -> String {
        crlf(&run(self.cmd().args(["--armor", "--detach-sign", "--local-user", uid]), bytes))
    }

    pub fn clearsign(&self, uid: &str, text: &str) -> String {
        crlf(&run(self.cmd().args(["--clearsign", "--local-user", uid]), text.as_bytes()))
    }

    /// `plain` encrypted to `recipient`, armoured.
    pub fn encrypt(&self, recipient: &str, plain: &[u8]) -> String {
        crlf(&run(self.cmd().args(["--armor", "--encrypt", "--recipient", recipient]), plain))
    }

    /// `gpg --verify sig part`: its success and its report (stderr).
    pub fn verify(&self, sig: &str, part: &[u8]) -> (bool, String) {
        let dir = tempfile::tempdir().unwrap();
        let (s, p) = (dir.path().join("sig.asc"), dir.path().join("part.eml"));
        std::fs::write(&s, sig).unwrap();
        std::fs::write(&p, part).unwrap();
        let out = output(self.cmd().arg("--verify").arg(&s).arg(&p), b"");
        (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
    }

    /// `plain` signed by `uid` and encrypted to `recipient` in one OpenPGP
    /// message (`gpg --sign --encrypt`: RFC 3156 §6.2), armoured.
    pub fn sign_encrypt(&self, uid: &str, recipient: &str, plain: &[u8]) -> String {
        let args = ["--armor", "--sign", "--local-user", uid, "--encrypt", "--recipient", recipient];
        crlf(&run(self.cmd().args(args), plain))
    }
}

/// A throw-away RNP home (Thunderbird's OpenPGP library).
pub struct Rnp {
    home: tempfile::TempDir,
}

impl Rnp {
    /// An empty home (keys come by [`Rnp::import`]).
    pub fn new() -> Rnp {
        need("rnp");
        need("rnpkeys");
        Rnp { home: tempfile::tempdir().unwrap() }
    }

    /// A home with a key for `uid` of RNP's default kind.
    pub fn with_key(uid: &str) -> Rnp {
        let rnp = Rnp::new();
        run(
            Command::new("rnpkeys").arg("--homedir").arg(rnp.home.path()).args([
                "--generate-key",
                "--userid",
                uid,
                "--password",
                "",
                "--notty",
            ]),
            b"",
        );
        rnp
    }

    pub fn export(&self, uid: &str) -> String {
        let out = run(Command::new("rnpkeys").arg("--homedir").arg(self.home.path()).args(["--export-key", uid]), b"");
        String::from_utf8(out).unwrap()
    }

    fn file(&self, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = self.home.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    /// Imports a public or secret key (armoured or binary).
    pub fn import(&self, key: &[u8]) {
        let file = self.file("import.pgp", key);
        run(Command::new("rnpkeys").arg("--homedir").arg(self.home.path()).arg("--import").arg(&file), b"");
    }

    fn rnp(&self, args: &[&str], input: &[u8]) -> String {
        let path = self.file("in.txt", input);
        let out = run(
            Command::new("rnp")
                .arg("--homedir")
                .arg(self.home.path())
                .args(args)
                .args(["--armor", "--password", "", "--output", "-"])
                .arg(&path),
            b"",
        );
        crlf(&out)
    }

    pub fn detach_sign(&self, uid: &str, bytes: &[u8]) -> String {
        self.rnp(&["--sign", "--detach", "-u", uid], bytes)
    }

    pub fn clearsign(&self, uid: &str, text: &str) -> String {
        let out = run(
            Command::new("rnp").arg("--homedir").arg(self.home.path()).args([
                "--clearsign",
                "-u",
                uid,
                "--password",
                "",
                "--output",
                "-",
            ]),
            text.as_bytes(),
        );
        crlf(&out)
    }

    pub fn encrypt(&self, recipient: &str, plain: &[u8]) -> String {
        self.rnp(&["--encrypt", "-r", recipient], plain)
    }

    /// `rnp --sign --encrypt` (RFC 3156 §6.2), armoured.
    pub fn sign_encrypt(&self, uid: &str, recipient: &str, plain: &[u8]) -> String {
        self.rnp(&["--sign", "--encrypt", "-u", uid, "-r", recipient], plain)
    }
}
