//! One name on several devices: a signed-in device asks for a short code
//! (`link_device`), another device signs in with it once (`hello.ticket`)
//! and gets a token of its own. Tickets expire, are single use, and wrong
//! ones are limited like room-code guesses. Each token is a device the
//! player sees (`devices`), can revoke (`revoke_device`) and is told of
//! (`device_added`); a player keeps a few, and unused ones expire.

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

/// A `hello` with a device code and a device label.
fn ticket_hello_as(code: &Value, device: &str) -> Value {
    json!({"type": "hello", "protocol": 1, "ticket": code, "device": device})
}

/// The `devices` list a connection is given.
async fn devices(client: &mut common::Client) -> Vec<Value> {
    let answer = client.request(json!({"type": "devices"})).await;
    assert_eq!(answer["type"], "devices", "{answer}");
    answer["devices"].as_array().cloned().unwrap_or_default()
}

/// Ann on her phone (labelled), and a second device signed in with a code
/// from it: the phone's welcome, the laptop's connection and welcome.
async fn ann_on_two_devices(server: &TestServer) -> (Value, common::Client, Value) {
    let (mut phone, ann) = server
        .player_with(
            json!({"type": "hello", "protocol": 1, "name": "Ann", "device": "Firefox on Android"}),
        )
        .await;
    let code = device_code(&mut phone, None).await["code"].clone();
    let (laptop, welcome) = server
        .player_with(ticket_hello_as(&code, "Safari on macOS"))
        .await;
    // The phone's connection was replaced: it is told who signed in first.
    let added = phone.recv_type("device_added").await;
    assert_eq!(added["device"]["label"], "Safari on macOS", "{added}");
    assert_eq!(phone.expect_close().await, 1000);
    (ann, laptop, welcome)
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
        server.hello_refused(common::ticket_hello(&code)).await;
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
    #[tokio::test]
    async fn a_new_players_device_is_written_with_them_survives_a_restart_and_can_be_revoked() {
        let database = fresh_database().await;
        let url = database.url.clone();
        let on = |url: String| move |c: &mut krypto_server::Config| c.database_url = url;
        let server = TestServer::with_config(on(url.clone())).await;
        let (first, ann) = server
            .player_with(json!({"type": "hello", "protocol": 1, "name": "Ann", "device": "Firefox on Android"}))
            .await;
        // Stored with Ann in the recorder's commit, before her welcome.
        let hash = krypto_server::token_hash(ann["token"].as_str().unwrap()).unwrap();
        let (label, created): (String, i64) = server
            .raw()
            .await
            .one(&format!(
                "SELECT label, created_ms FROM player_tokens WHERE token_hash = '{hash}'"
            ))
            .await;
        assert_eq!(label, "Firefox on Android");
        assert!(created > 1_700_000_000_000, "{created}");
        drop(first);
        server.shutdown().await;

        let server = TestServer::with_config(on(url.clone())).await;
        let (mut phone, again) = server.player_with(common::hello_again(&ann)).await;
        assert_eq!(again["player_id"], ann["player_id"]);
        let listed = devices(&mut phone).await;
        assert_eq!(listed.len(), 1, "{listed:?}");
        assert_eq!(listed[0]["label"], "Firefox on Android");
        assert_eq!(listed[0]["created_ms"], created);
        assert_eq!(listed[0]["this_device"], true);
        // Revoked, the token signs nobody in, here or after the next start.
        let after = phone
            .request(json!({"type": "revoke_device", "device": listed[0]["id"]}))
            .await;
        assert_eq!(after["devices"], json!([]), "{after}");
        assert_eq!(phone.expect_close().await, 1000);
        let mut late = server.connect().await;
        late.send(common::hello_again(&ann)).await;
        late.expect_error("bad_token").await;
        server.shutdown().await;
        let server = TestServer::with_config(on(url)).await;
        let mut late = server.connect().await;
        late.send(common::hello_again(&ann)).await;
        late.expect_error("bad_token").await;
        server.shutdown().await;
        drop(database);
    }

    #[tokio::test]
    async fn each_device_is_listed_with_its_label_and_the_replaced_one_is_told() {
        let server = TestServer::start().await;
        let (ann, mut laptop, _) = ann_on_two_devices(&server).await;
        let listed = devices(&mut laptop).await;
        assert_eq!(listed.len(), 2, "{listed:?}");
        assert_eq!(listed[0]["label"], "Firefox on Android");
        assert!(listed[0].get("this_device").is_none(), "{listed:?}");
        assert_eq!(listed[1]["label"], "Safari on macOS");
        assert_eq!(listed[1]["this_device"], true);
        let id = listed[1]["id"].as_str().unwrap();
        assert_eq!(id.len(), 16);
        let hash = krypto_server::token_hash(ann["token"].as_str().unwrap()).unwrap();
        assert!(hash.starts_with(listed[0]["id"].as_str().unwrap()));
        assert!(listed[1]["created_ms"].as_i64().unwrap() >= listed[0]["created_ms"].as_i64().unwrap());
        assert!(listed[0]["last_used_ms"].as_i64().unwrap() > 1_700_000_000_000);
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_revoked_device_is_signed_out_for_good_and_revoking_this_one_closes_it() {
        let server = TestServer::start().await;
        let (ann, mut laptop, mine) = ann_on_two_devices(&server).await;
        let listed = devices(&mut laptop).await;
        let phone_id = listed[0]["id"].clone();
        let after = laptop.request(json!({"type": "revoke_device", "device": phone_id})).await;
        assert_eq!(after["type"], "devices", "{after}");
        assert_eq!(after["devices"].as_array().unwrap().len(), 1, "{after}");
        // The phone's first token no longer proves Ann.
        server.hello_refused(common::hello_again(&ann)).await;
        // Nobody else's device, nor a made-up id.
        for id in [phone_id, json!("0123456789abcdef"), json!("not an id"), json!("x".repeat(5000))] {
            laptop
                .refused(json!({"type": "revoke_device", "device": id}), "device_not_found")
                .await;
        }
        // Revoking itself: the answer, then the connection closes.
        let own = listed[1]["id"].clone();
        let after = laptop.request(json!({"type": "revoke_device", "device": own})).await;
        assert_eq!(after["devices"], json!([]), "{after}");
        assert_eq!(laptop.expect_close().await, 1000);
        server.hello_refused(common::hello_again(&mine)).await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_device_that_was_away_is_told_of_the_new_one_at_its_next_hello() {
        let server = TestServer::start().await;
        let (ann, laptop, _) = ann_on_two_devices(&server).await;
        drop(laptop);
        // The phone last said hello over a minute before the laptop came.
        let hash = krypto_server::token_hash(ann["token"].as_str().unwrap()).unwrap();
        server
            .raw()
            .await
            .execute(&format!(
                "UPDATE player_tokens SET last_used_ms = last_used_ms - 120000 WHERE token_hash = '{hash}'"
            ))
            .await;
        let (mut phone, _) = server.player_with(common::hello_again(&ann)).await;
        let added = phone.recv().await;
        assert_eq!(added["type"], "device_added", "{added}");
        assert_eq!(added["device"]["label"], "Safari on macOS");
        // Told once: the phone's last use moved on.
        drop(phone);
        let (mut phone, _) = server.player_with(common::hello_again(&ann)).await;
        let next = phone.request(json!({"type": "ping"})).await;
        assert_eq!(next["type"], "pong", "{next}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_player_keeps_at_most_the_cap_and_the_least_recently_used_goes() {
        let server = TestServer::with_config(|c| c.max_devices = 3).await;
        let (mut current, first) = server.player("Ben").await;
        let mut welcomes = vec![first];
        for n in 0..3 {
            let code = device_code(&mut current, None).await["code"].clone();
            let (next, welcome) = server
                .player_with(ticket_hello_as(&code, &format!("device {n}")))
                .await;
            current = next;
            welcomes.push(welcome);
        }
        let listed = devices(&mut current).await;
        let labels: Vec<&str> = listed.iter().map(|d| d["label"].as_str().unwrap()).collect();
        assert_eq!(labels, ["device 0", "device 1", "device 2"]);
        server.hello_refused(common::hello_again(&welcomes[0])).await;
        server.shutdown().await;
    }

    #[tokio::test]
    async fn a_device_unused_past_the_expiry_is_refused_and_labels_are_cleaned() {
        let server = TestServer::with_config(|c| c.device_expiry_days = 90).await;
        let long = format!("\u{202e}Evil\n{}", "x".repeat(300));
        let (_c, ann) = server
            .player_with(json!({"type": "hello", "protocol": 1, "name": "Ann", "device": long}))
            .await;
        let (mut c, _) = server.player_with(common::hello_again(&ann)).await;
        let listed = devices(&mut c).await;
        let label = listed[0]["label"].as_str().unwrap();
        assert!(label.starts_with("Evil x"), "{label}");
        assert_eq!(label.chars().count(), krypto_core::protocol::MAX_DEVICE_LABEL_CHARS);
        drop(c);
        let ninety_one_days_ms: i64 = 91 * 86_400_000;
        server
            .raw()
            .await
            .execute(&format!(
                "UPDATE player_tokens SET last_used_ms = last_used_ms - {ninety_one_days_ms}"
            ))
            .await;
        let refused = server.hello_refused(common::hello_again(&ann)).await;
        assert!(refused["message"].as_str().unwrap().contains("unused"), "{refused}");
        server.shutdown().await;
    }

    #[tokio::test]
    async fn devices_unused_past_the_cutoff_are_pruned_and_sign_nobody_in() {
        use krypto_server::db::devices::SignIn;
        let database = fresh_database().await;
        let db = Db::open(&database.url).await.unwrap();
        let token = krypto_server::new_token().unwrap();
        let hash = krypto_server::token_hash(&token).unwrap();
        let dan = common::seed_player(&db, "Dan", &hash, false).await;
        // A player stored before devices had rows signs in by the first token.
        assert!(db.player_by_token_hash(&hash).await.unwrap().is_some());
        let sign_in = SignIn {
            player: dan,
            token_hash: &hash,
            label: "old phone",
            now_ms: 1_000,
            max_devices: 10,
            expired_before_ms: None,
        };
        let touched = db.touch_device(sign_in).await.unwrap();
        assert_eq!(touched.previous_use_ms, None);
        assert_eq!(db.prune_devices(1_000).await.unwrap(), 0, "used at the cutoff");
        assert_eq!(db.prune_devices(1_001).await.unwrap(), 1);
        assert_eq!(db.devices(dan).await.unwrap(), vec![]);
        assert_eq!(db.player_by_token_hash(&hash).await.unwrap(), None);
        db.close().await;
    }
}
