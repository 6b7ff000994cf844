//! One name on several devices: a signed-in device asks for a short code
//! (`link_device`), another device signs in with it once (`hello.ticket`)
//! and gets a token of its own. Tickets expire, are single use, and wrong
//! ones are limited like room-code guesses.

#[macro_use]
mod common;

use common::{fresh_database, TestServer};
use krypto_core::protocol::PlayerId;
use krypto_server::db::tickets::TicketKind;
use krypto_server::db::Db;
use serde_json::{json, Value};

/// The code a signed-in connection is given.
async fn device_code(client: &mut common::Client, base: Option<&str>) -> Value {
    let mut ask = json!({"type": "link_device"});
    if let Some(base) = base {
        ask["base"] = json!(base);
    }
    let answer = client.request(ask).await;
    assert_eq!(answer["type"], "device_code", "{answer}");
    answer
}

on_both! {
    #[tokio::test]
    async fn a_code_signs_a_second_device_in_once_with_a_token_of_its_own() {
        let server = TestServer::start().await;
        let (mut phone, ann) = server.player("Ann").await;
        let answer = device_code(&mut phone, Some("http://192.168.1.20:7878")).await;
        let code = answer["code"].as_str().unwrap().to_owned();
        assert_eq!(code.len(), 9, "{answer}");
        assert_eq!(answer["expires_ms"], 300_000);
        assert!(answer["qr_svg"].as_str().unwrap().contains("<svg"));

        // Typed on the laptop in lower case with a space instead of the dash.
        let typed = code.replace('-', " ").to_lowercase();
        let (_laptop, welcome) = server
            .player_with(common::ticket_hello(&typed))
            .await;
        assert_eq!(welcome["player_id"], ann["player_id"]);
        assert_eq!(welcome["name"], "Ann");
        assert_ne!(welcome["token"], ann["token"]);

        // Both tokens prove Ann from now on.
        for token in [&ann["token"], &welcome["token"]] {
            let (_c, again) = server
                .player_with(json!({"type": "hello", "protocol": 1, "token": token}))
                .await;
            assert_eq!(again["player_id"], ann["player_id"]);
        }

        // The code was used up.
        let mut thief = server.connect().await;
        thief.send(common::ticket_hello(&code)).await;
        thief.expect_error("bad_token").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn asking_again_replaces_the_code_and_without_a_base_there_is_no_qr() {
        let server = TestServer::start().await;
        let (mut phone, _) = server.player("Ben").await;
        let first = device_code(&mut phone, None).await;
        assert!(first.get("qr_svg").is_none(), "{first}");
        let second = device_code(&mut phone, Some("javascript:alert(1)")).await;
        assert!(second.get("qr_svg").is_none(), "{second}");
        let mut other = server.connect().await;
        other.send(common::ticket_hello(&first["code"])).await;
        other.expect_error("bad_token").await;
        other.send(common::ticket_hello(&second["code"])).await;
        assert_eq!(other.recv().await["name"], "Ben");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn wrong_codes_are_guesses_and_are_limited() {
        let server = TestServer::with_config(|c| c.max_code_misses = 3).await;
        let mut guesser = server.connect().await;
        for _ in 0..3 {
            guesser.send(common::ticket_hello("AAAA-AAAA")).await;
            guesser.expect_error("bad_token").await;
        }
        guesser.send(common::ticket_hello("AAAA-AAAB")).await;
        guesser.expect_error("rate_limited").await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_ticket_is_refused_once_expired_or_as_another_kind() {
        let database = fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        let created = db
            .create_player(krypto_server::db::scores::NewPlayer {
                name: "Cat".into(),
                name_key: "cat".into(),
                token_hash: "11".repeat(32),
                bot: false,
            })
            .await
            .unwrap();
        let krypto_server::db::Created::Player(cat) = created else {
            panic!("Cat not created");
        };
        let cat = PlayerId(cat.id);
        let now = 1_000_000;
        db.insert_ticket("aa", cat, TicketKind::Device, now, now + 300_000).await.unwrap();
        assert_eq!(db.take_ticket("aa", TicketKind::Device, now + 300_000).await.unwrap(), None);
        // Gone, even though it was refused.
        db.insert_ticket("bb", cat, TicketKind::Device, now, now + 300_000).await.unwrap();
        assert_eq!(db.take_ticket("bb", TicketKind::Handover, now).await.unwrap(), None);
        db.insert_ticket("cc", cat, TicketKind::Handover, now, now + 30_000).await.unwrap();
        let taken = db.take_ticket("cc", TicketKind::Handover, now + 29_999).await.unwrap();
        assert_eq!(taken.map(|p| p.name), Some("Cat".to_owned()));
        assert_eq!(db.take_ticket("cc", TicketKind::Handover, now).await.unwrap(), None);
        db.close().await;
    }
}
