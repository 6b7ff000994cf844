//! How long a room whose members all dropped stays open. It lives its
//! grace (60 s) once per absence: a member who comes back only for a
//! moment — a `hello` resuming their seat, then gone again — does not
//! restart it. Only a member who stays connected for a whole grace ends
//! the absence, so keeping a deserted room open costs a live connection
//! for at least half of the time (and that connection's address holds the
//! room against its share).

use std::time::Duration;

use tokio::time::Instant;

/// A room's absences, fed the times its connections come and go.
#[derive(Debug, Clone, Default)]
pub(crate) struct Absence {
    /// When the current absence began (the grace counts from here); kept
    /// while someone is briefly back.
    since: Option<Instant>,
    /// When someone connected during the absence.
    back_since: Option<Instant>,
}

impl Absence {
    /// The room's connected members are now `connected` (true: at least
    /// one), at `now`.
    pub(crate) fn update(&mut self, connected: bool, now: Instant, grace: Duration) {
        if connected {
            if self.since.is_some() {
                self.back_since.get_or_insert(now);
            }
            return;
        }
        let stayed = self
            .back_since
            .take()
            .is_some_and(|back| now.saturating_duration_since(back) >= grace);
        if self.since.is_none() || stayed {
            self.since = Some(now);
        }
    }

    /// When the room closes if nobody connects before; `None` while
    /// someone is connected.
    pub(crate) fn close_at(&self, grace: Duration) -> Option<Instant> {
        match (self.since, self.back_since) {
            (Some(since), None) => Some(since + grace),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRACE: Duration = Duration::from_secs(60);

    #[test]
    fn a_deserted_room_lives_its_grace_once_whatever_brief_returns_say() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut absence = Absence::default();
        absence.update(true, at(0), GRACE);
        assert_eq!(absence.close_at(GRACE), None, "a member is connected");
        absence.update(false, at(10), GRACE);
        assert_eq!(absence.close_at(GRACE), Some(at(70)));
        // A hello resuming the seat every 45 s, gone a moment later.
        for s in [45, 90, 135] {
            absence.update(true, at(s), GRACE);
            assert_eq!(absence.close_at(GRACE), None);
            absence.update(false, at(s + 1), GRACE);
            assert_eq!(
                absence.close_at(GRACE),
                Some(at(70)),
                "not restarted at {s}"
            );
        }
    }

    #[test]
    fn a_member_back_for_a_whole_grace_starts_a_new_absence() {
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        let mut absence = Absence::default();
        absence.update(false, at(0), GRACE);
        absence.update(true, at(30), GRACE);
        absence.update(false, at(90), GRACE);
        assert_eq!(absence.close_at(GRACE), Some(at(150)));
        absence.update(true, at(100), GRACE);
        absence.update(false, at(159), GRACE);
        assert_eq!(
            absence.close_at(GRACE),
            Some(at(150)),
            "59 s is not a whole grace"
        );
    }
}
