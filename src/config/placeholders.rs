//! Keys still at a placeholder: what `serve` warns about once its start-up
//! checks have passed (a refused start says only why it was refused).

use super::Config;

/// What the configuration still leaves at a placeholder that players cannot
/// use: links to `public_url` in every mail, and reply addresses at the sender's
/// domain. Each is one sentence naming the key to set in fairsteward.toml;
/// `serve` logs them as warnings and runs on (a trial on one machine needs none).
pub fn placeholders(config: &Config) -> Vec<String> {
    let mut warnings = Vec::new();
    let host = url_host(&config.public_url);
    if is_placeholder_host(host) {
        warnings.push(format!(
            "http.public_url is {}, which players elsewhere cannot reach: the links in every mail point there. \
             Set public_url under [http] in fairsteward.toml to the address players open (e.g. https://games.yourclub.org)",
            config.public_url
        ));
    }
    let from = config.mail_from.email.domain();
    if is_placeholder_host(from) {
        warnings.push(format!(
            "mail.from is {}, at a placeholder domain: players' replies to moves+…@{from} reach nobody. \
             Set from under [mail] in fairsteward.toml to an address at your domain whose moves+… mail reaches the steward",
            config.mail_from.email
        ));
    }
    warnings
}

/// The host of an `http://` or `https://` URL, without port or brackets.
pub(crate) fn url_host(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    if let Some(v6) = authority.strip_prefix('[') {
        return v6.split(']').next().unwrap_or(v6);
    }
    authority.split(':').next().unwrap_or(authority)
}

/// A loopback or unspecified address, `localhost`, or a name reserved for
/// examples and tests (RFC 2606, RFC 6761): nothing a player's mail or browser
/// reaches.
pub(crate) fn is_placeholder_host(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return ip.is_loopback() || ip.is_unspecified();
    }
    let reserved_domains = ["example.org", "example.com", "example.net"];
    let reserved_tops = ["example", "invalid", "test", "localhost"];
    host == "localhost"
        || reserved_domains.iter().any(|d| host == *d || host.ends_with(&format!(".{d}")))
        || reserved_tops.iter().any(|t| host == *t || host.ends_with(&format!(".{t}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Overrides, RawConfig};

    fn config(toml: &str) -> Config {
        Config::from_raw(toml::from_str::<RawConfig>(toml).unwrap(), &Overrides::default()).unwrap()
    }

    #[test]
    fn the_embedded_defaults_warn_about_both_keys() {
        let warnings = placeholders(&Config::load(None, &Overrides::default()).unwrap());
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("http.public_url is http://127.0.0.1:8080") && warnings[0].contains("[http]"));
        assert!(warnings[1].contains("mail.from is moves@steward.example") && warnings[1].contains("[mail]"));
        assert!(warnings.iter().all(|w| w.contains("fairsteward.toml")), "{warnings:?}");
    }

    #[test]
    fn real_addresses_raise_no_warning() {
        let c =
            config("[http]\npublic_url = \"https://chess.club.org:8443/\"\n[mail]\nfrom = \"Club <moves@club.org>\"\n");
        assert_eq!(placeholders(&c), Vec::<String>::new());
    }

    #[test]
    fn every_kind_of_placeholder_is_named() {
        for url in [
            "http://localhost:8080",
            "http://0.0.0.0:8080",
            "http://[::1]:8080",
            "https://steward.example",
            "https://games.example.org/",
            "https://user@chess.test",
        ] {
            let c = config(&format!("[http]\npublic_url = \"{url}\"\n[mail]\nfrom = \"moves@club.org\"\n"));
            let w = placeholders(&c);
            assert!(w.len() == 1 && w[0].starts_with("http.public_url"), "{url}: {w:?}");
        }
        for from in ["moves@example.com", "moves@mail.steward.example", "moves@localhost", "moves@club.invalid"] {
            let c = config(&format!("[http]\npublic_url = \"https://club.org\"\n[mail]\nfrom = \"{from}\"\n"));
            let w = placeholders(&c);
            assert!(w.len() == 1 && w[0].starts_with("mail.from"), "{from}: {w:?}");
        }
    }
}
