//! The daily's session fed the inputs of a server that went away.

use super::*;
use crate::solo::testkit::welcome;

#[test]
fn a_server_that_stays_away_is_said_once_until_it_is_back() {
    let mut session = Session::new(Mode::Daily(None), "http://127.0.0.1:7878");
    let refused = || Input::Dropped("cannot reach: refused".to_owned());
    let said = |steps: Vec<Step>| {
        steps
            .iter()
            .filter(|s| matches!(s, Step::Print(l) if l.starts_with("Connection lost")))
            .count()
    };
    assert_eq!(said(session.handle(refused())), 1);
    assert_eq!(said(session.handle(refused())), 0);
    assert_eq!(said(session.handle(Input::Dropped("reset".to_owned()))), 1);
    session.handle(welcome());
    // Back, then gone again the same way: said again.
    assert_eq!(said(session.handle(refused())), 1);
}
