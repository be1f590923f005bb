//! iCalendar (RFC 5545) for a seat's deadlines: one `VEVENT` per deadline, times in
//! UTC (`...Z`), each with `VALARM`s at the reminder points, so a calendar app
//! reminds the player as the steward's mails would.
//!
//! Lines end in CRLF and are folded at 75 octets (never inside a UTF-8 character);
//! text values are escaped (`\\`, `\;`, `\,`, `\n`).

use chrono::{DateTime, TimeDelta, Utc};

/// One deadline in the feed.
#[derive(Clone, Debug)]
pub struct Event {
    /// A stable unique id (`<game>-<seat>-<turn>-<stage>-<what>@<domain>`).
    pub uid: String,
    /// The moment.
    pub at: DateTime<Utc>,
    /// The title.
    pub summary: String,
    /// The details.
    pub description: String,
    /// The game page.
    pub url: Option<String>,
    /// How long before `at` to remind.
    pub alarms: Vec<TimeDelta>,
}

/// Formats a time as iCalendar UTC DATE-TIME: `20261224T120000Z`.
pub fn time(t: DateTime<Utc>) -> String {
    t.format("%Y%m%dT%H%M%SZ").to_string()
}

/// Escapes a TEXT value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// A DURATION before an instant, like `-PT12H` or `-P2DT3H`.
pub fn before(d: TimeDelta) -> String {
    let secs = d.num_seconds().max(0);
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (h, m, s) = (rest / 3600, (rest / 60) % 60, rest % 60);
    let mut out = String::from("-P");
    if days > 0 {
        out.push_str(&format!("{days}D"));
    }
    if rest > 0 || days == 0 {
        out.push('T');
        if h > 0 {
            out.push_str(&format!("{h}H"));
        }
        if m > 0 {
            out.push_str(&format!("{m}M"));
        }
        if s > 0 || (h == 0 && m == 0) {
            out.push_str(&format!("{s}S"));
        }
    }
    out
}

/// Appends one content line, folded at 75 octets, with CRLF.
fn line(out: &mut String, text: &str) {
    let mut width = 0;
    for c in text.chars() {
        let n = c.len_utf8();
        if width + n > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += n;
    }
    out.push_str("\r\n");
}

/// A whole calendar named `name`, stamped `stamp`.
pub fn calendar(name: &str, stamp: DateTime<Utc>, events: &[Event]) -> String {
    let mut out = String::new();
    line(&mut out, "BEGIN:VCALENDAR");
    line(&mut out, "VERSION:2.0");
    line(&mut out, "PRODID:-//Fairsteward//Deadlines//EN");
    line(&mut out, "CALSCALE:GREGORIAN");
    line(&mut out, "METHOD:PUBLISH");
    line(&mut out, &format!("X-WR-CALNAME:{}", escape(name)));
    for e in events {
        line(&mut out, "BEGIN:VEVENT");
        line(&mut out, &format!("UID:{}", escape(&e.uid)));
        line(&mut out, &format!("DTSTAMP:{}", time(stamp)));
        line(&mut out, &format!("DTSTART:{}", time(e.at)));
        line(&mut out, &format!("DTEND:{}", time(e.at + TimeDelta::minutes(15))));
        line(&mut out, &format!("SUMMARY:{}", escape(&e.summary)));
        line(&mut out, &format!("DESCRIPTION:{}", escape(&e.description)));
        if let Some(url) = &e.url {
            line(&mut out, &format!("URL:{url}"));
        }
        line(&mut out, "TRANSP:TRANSPARENT");
        for a in &e.alarms {
            line(&mut out, "BEGIN:VALARM");
            line(&mut out, "ACTION:DISPLAY");
            line(&mut out, &format!("TRIGGER:{}", before(*a)));
            line(&mut out, &format!("DESCRIPTION:{}", escape(&e.summary)));
            line(&mut out, "END:VALARM");
        }
        line(&mut out, "END:VEVENT");
    }
    line(&mut out, "END:VCALENDAR");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_and_lines_folded() {
        assert_eq!(escape("a;b,c\\d\ne"), "a\\;b\\,c\\\\d\\ne");
        let mut out = String::new();
        line(&mut out, &format!("DESCRIPTION:{}", "é".repeat(60)));
        for l in out.split("\r\n") {
            assert!(l.len() <= 75, "{l:?} has {} octets", l.len());
        }
        let unfolded = out.replace("\r\n ", "");
        assert_eq!(unfolded, format!("DESCRIPTION:{}\r\n", "é".repeat(60)));
    }

    #[test]
    fn durations_and_times_are_in_icalendar_form() {
        assert_eq!(before(TimeDelta::hours(12)), "-PT12H");
        assert_eq!(before(TimeDelta::hours(48)), "-P2D");
        assert_eq!(before(TimeDelta::minutes(26 * 60 + 5)), "-P1DT2H5M");
        assert_eq!(before(TimeDelta::zero()), "-PT0S");
        let t = DateTime::parse_from_rfc3339("2026-12-24T12:00:00Z").unwrap().with_timezone(&Utc);
        assert_eq!(time(t), "20261224T120000Z");
    }

    #[test]
    fn a_calendar_has_its_frame_and_events() {
        let t = DateTime::parse_from_rfc3339("2026-12-24T12:00:00Z").unwrap().with_timezone(&Utc);
        let cal = calendar(
            "Fairsteward",
            t,
            &[Event {
                uid: "8KQ2ZJ-white-3-0-deadline@steward.example".into(),
                at: t,
                summary: "Move due, game 8KQ2ZJ".into(),
                description: "Turn 3, you play white".into(),
                url: Some("http://127.0.0.1:8080/api/games/8KQ2ZJ".into()),
                alarms: vec![TimeDelta::hours(48), TimeDelta::hours(12)],
            }],
        );
        assert!(cal.starts_with("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n"));
        assert!(cal.ends_with("END:VCALENDAR\r\n"));
        assert!(cal.contains("DTSTART:20261224T120000Z\r\n"));
        assert_eq!(cal.matches("BEGIN:VALARM").count(), 2);
        assert!(!cal.replace("\r\n", "").contains('\n'), "CRLF only");
    }
}
