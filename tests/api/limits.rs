//! SPEC "Limits": per-key fixed-window rate limits (also across instances), the
//! per-IP throttle of failed authentication, and the request body size limit.

use crate::fixtures::eventually;
use crate::harness::*;
use ::forms::accounts::Plan;
use serde_json::json;
use std::collections::BTreeSet;
use std::time::Duration;

/// Sleeps until just after the next multiple of `window` seconds, so that a short burst
/// of requests most likely falls into one window (tests still check it did).
async fn align_to_window(window: i64) {
    let now = chrono::Utc::now().timestamp();
    sleep_until_unix(now - now.rem_euclid(window) + window).await;
}

fn resets(replies: &[Reply]) -> BTreeSet<u64> {
    replies
        .iter()
        .map(|r| r.header_u64("x-ratelimit-reset"))
        .collect()
}

#[tokio::test]
async fn default_limits_follow_the_plan_and_60_second_windows() {
    let app = TestApp::spawn().await;
    for (plan, limit) in [(Plan::Pro, 1000_u64), (Plan::Enterprise, 5000)] {
        let key = app.key(plan, READ).await;
        let first = app.get("/forms", &key).await;
        first.ok(200);
        let second = app.get("/forms", &key).await;
        second.ok(200);
        for reply in [&first, &second] {
            assert_eq!(reply.header_u64("x-ratelimit-limit"), limit);
            let reset = reply.header_u64("x-ratelimit-reset") as i64;
            assert_eq!(reset % 60, 0, "fixed windows start on the minute");
            let now = unix_now();
            assert!(
                reset > now - 1 && reset <= now + 60,
                "reset {reset}, now {now}"
            );
        }
        if first.header("x-ratelimit-reset") == second.header("x-ratelimit-reset") {
            assert_eq!(first.header_u64("x-ratelimit-remaining"), limit - 1);
            assert_eq!(second.header_u64("x-ratelimit-remaining"), limit - 2);
        }
    }
}

#[tokio::test]
async fn exceeding_the_rate_limit_gives_429_until_the_window_resets() {
    let app = TestApp::spawn_with(&["--pro-rate-limit", "3", "--rate-window-secs", "2"]).await;
    for _attempt in 0..4 {
        let key = app.key(PRO, READ).await;
        align_to_window(2).await;
        let mut replies = Vec::new();
        for _ in 0..4 {
            replies.push(app.get("/forms", &key).await);
        }
        if resets(&replies).len() != 1 {
            continue; // the burst straddled two windows: try again with a fresh key
        }
        for (reply, remaining) in replies[..3].iter().zip([2, 1, 0]) {
            reply.ok(200);
            assert_eq!(reply.header_u64("x-ratelimit-limit"), 3);
            assert_eq!(reply.header_u64("x-ratelimit-remaining"), remaining);
        }
        let limited = &replies[3];
        let error = limited.error(429, "RATE_LIMITED");
        assert_eq!(limited.header_u64("x-ratelimit-limit"), 3);
        assert_eq!(limited.header_u64("x-ratelimit-remaining"), 0);
        let retry_after = limited.header_u64("retry-after");
        assert!((1..=2).contains(&retry_after), "Retry-After {retry_after}");
        assert_eq!(error["retryAfter"], retry_after, "retryAfter in the body");
        let reset = limited.header_u64("x-ratelimit-reset") as i64;
        assert!(reset > unix_now() - 1 && reset <= unix_now() + 2);

        // Until the reset every request (of any kind) is refused...
        let usage = app.get("/usage", &key).await;
        let still = usage.header_u64("x-ratelimit-reset") as i64 == reset;
        if still {
            usage.error(429, "RATE_LIMITED");
        }
        // ...then the key works again with a fresh allowance.
        sleep_until_unix(reset).await;
        let after = app.get("/forms", &key).await;
        after.ok(200);
        let fresh = after.header_u64("x-ratelimit-remaining");
        if still {
            assert_eq!(fresh, 2);
        } else {
            assert!((1..=2).contains(&fresh), "remaining {fresh}");
        }
        assert!(after.header_u64("x-ratelimit-reset") as i64 > reset);

        // The refused requests were counted as requests and errors.
        let usage = app.get("/usage", &key).await;
        let data = usage.ok(200);
        assert_eq!(data["total_requests"], 7);
        let errors = if still { 2 } else { 1 };
        assert_eq!(data["total_errors"], errors);
        return;
    }
    panic!("could not fit four requests into one 2-second window");
}

#[tokio::test]
async fn rate_limits_are_per_key_and_per_plan() {
    let app = TestApp::spawn_with(&["--pro-rate-limit", "2", "--enterprise-rate-limit", "3"]).await;
    for _attempt in 0..3 {
        let pro = app.new_key(PRO, READ).await;
        let sibling = app.key_for(&pro.account, PRO, READ).await;
        let enterprise = app.key(Plan::Enterprise, READ).await;
        let mut replies = Vec::new();
        for _ in 0..3 {
            replies.push(app.get("/forms", &pro.key).await);
        }
        replies.push(app.get("/forms", &sibling.key).await);
        for _ in 0..4 {
            replies.push(app.get("/forms", &enterprise).await);
        }
        if resets(&replies).len() != 1 {
            continue; // crossed a minute boundary
        }
        replies[0].ok(200);
        replies[1].ok(200);
        replies[2].error(429, "RATE_LIMITED");
        // Another key of the same account has its own window.
        replies[3].ok(200);
        assert_eq!(replies[3].header_u64("x-ratelimit-remaining"), 1);
        for reply in &replies[4..7] {
            reply.ok(200);
            assert_eq!(reply.header_u64("x-ratelimit-limit"), 3);
        }
        replies[7].error(429, "RATE_LIMITED");
        return;
    }
    panic!("requests kept straddling window boundaries");
}

#[tokio::test]
async fn rate_limit_holds_across_instances_on_one_database() {
    let first = TestApp::spawn_with(&["--pro-rate-limit", "5"]).await;
    let second = TestApp::spawn_on(first.db.clone(), &["--pro-rate-limit", "5"]).await;
    assert_ne!(first.http_base, second.http_base);
    for _attempt in 0..3 {
        let key = first.key(PRO, ALL).await;
        let mut replies = Vec::new();
        for i in 0..6 {
            let app = if i % 2 == 0 { &first } else { &second };
            replies.push(app.get("/forms", &key).await);
        }
        if resets(&replies).len() != 1 {
            continue;
        }
        for (reply, remaining) in replies[..5].iter().zip([4, 3, 2, 1, 0]) {
            reply.ok(200);
            assert_eq!(reply.header_u64("x-ratelimit-remaining"), remaining);
        }
        replies[5].error(429, "RATE_LIMITED");
        // Both instances refuse the key now.
        first.get("/forms", &key).await.error(429, "RATE_LIMITED");
        // Usage is shared too: requests on either instance count for the key.
        let other = first.key(PRO, READ).await;
        for app in [&first, &second, &first] {
            app.get("/forms", &other).await.ok(200);
        }
        // Each instance writes its counts every second: once both have, a read on
        // either sees all (the read itself included).
        let (prefix, _) = split_key(&other);
        let lookup = prefix.trim_start_matches("fsk_").to_owned();
        eventually(
            "usage written by both instances",
            Duration::from_secs(10),
            || async {
                let written: Option<i64> = sqlx::query_scalar(
                    "SELECT sum(request_count)::int8 FROM usage_daily u
                   JOIN api_keys k ON k.id = u.key_id WHERE k.lookup = $1",
                )
                .bind(&lookup)
                .fetch_one(&first.pool)
                .await
                .expect("usage rows");
                (written == Some(3)).then_some(())
            },
        )
        .await;
        let usage = second.get("/usage", &other).await;
        assert_eq!(usage.ok(200)["total_requests"], 4);
        return;
    }
    panic!("requests kept straddling window boundaries");
}

#[tokio::test]
async fn concurrent_requests_on_two_instances_never_exceed_the_limit() {
    let extra = ["--pro-rate-limit", "5", "--rate-window-secs", "3"];
    let first = TestApp::spawn_with(&extra).await;
    let second = TestApp::spawn_on(first.db.clone(), &extra).await;
    for _attempt in 0..4 {
        let key = first.key(PRO, READ).await;
        align_to_window(3).await;
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..20 {
            let app = if i % 2 == 0 { &first } else { &second };
            tasks.spawn(send(
                app.request(Method::GET, "/forms").header("x-api-key", &key),
            ));
        }
        let replies: Vec<Reply> = tasks.join_all().await;
        if resets(&replies).len() != 1 {
            continue;
        }
        let ok: Vec<&Reply> = replies.iter().filter(|r| r.status == 200).collect();
        assert_eq!(ok.len(), 5, "exactly the limit gets through");
        let mut remaining: Vec<u64> = ok
            .iter()
            .map(|r| r.header_u64("x-ratelimit-remaining"))
            .collect();
        remaining.sort_unstable();
        assert_eq!(
            remaining,
            [0, 1, 2, 3, 4],
            "each admitted request has its own count"
        );
        for reply in replies.iter().filter(|r| r.status != 200) {
            reply.error(429, "RATE_LIMITED");
        }
        // Every one of them was counted, refused ones as errors.
        sleep_until_unix(replies[0].header_u64("x-ratelimit-reset") as i64).await;
        let usage = second.get("/usage", &key).await;
        let data = usage.ok(200);
        assert_eq!(data["total_requests"], 21);
        assert_eq!(data["total_errors"], 15);
        return;
    }
    panic!("requests kept straddling window boundaries");
}

#[tokio::test]
async fn leased_windows_never_exceed_the_limit_across_instances() {
    // 320 a window: instances lease blocks of 10 (a 32nd). Across two instances a key
    // gets at most its limit, and at least the limit less one instance's unused lease.
    let extra = ["--pro-rate-limit", "320", "--rate-window-secs", "20"];
    let first = TestApp::spawn_with(&extra).await;
    let second = TestApp::spawn_on(first.db.clone(), &extra).await;
    for _attempt in 0..3 {
        let key = first.key(PRO, READ).await;
        align_to_window(20).await;
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..400 {
            let app = if i % 2 == 0 { &first } else { &second };
            tasks.spawn(send(
                app.request(Method::GET, "/forms").header("x-api-key", &key),
            ));
        }
        let replies: Vec<Reply> = tasks.join_all().await;
        if resets(&replies).len() != 1 {
            continue;
        }
        let ok = replies.iter().filter(|r| r.status == 200).count();
        assert!(ok <= 320, "{ok} requests got through a limit of 320");
        assert!(ok >= 320 - 9, "only {ok} of 320 got through");
        for reply in replies.iter().filter(|r| r.status != 200) {
            reply.error(429, "RATE_LIMITED");
            assert_eq!(reply.header_u64("x-ratelimit-remaining"), 0);
        }
        // The figures stay truthful within one lease of the other instance.
        let mut remaining: Vec<u64> = replies
            .iter()
            .filter(|r| r.status == 200)
            .map(|r| r.header_u64("x-ratelimit-remaining"))
            .collect();
        remaining.sort_unstable();
        assert!(remaining[0] <= 9, "lowest remaining {}", remaining[0]);
        assert!(remaining.iter().all(|r| *r < 320));
        return;
    }
    panic!("requests kept straddling window boundaries");
}

#[tokio::test]
async fn failed_authentication_is_throttled_per_client_ip() {
    let app = TestApp::spawn_with(&["--auth-failures-per-minute", "3"]).await;
    let valid = app.key(PRO, READ).await;
    let mut remaining = Vec::new();
    for i in 0..3 {
        let reply = if i == 1 {
            send(app.request(Method::GET, "/forms")).await
        } else {
            app.get("/forms", "fsk_0123456789abcdef_guessguessguess")
                .await
        };
        assert_eq!(reply.status, 401, "{}", reply.text);
        assert_eq!(reply.header_u64("x-ratelimit-limit"), 3);
        remaining.push(reply.header_u64("x-ratelimit-remaining"));
    }
    assert_eq!(remaining, [2, 1, 0]);
    for reply in [
        app.get("/forms", "fsk_0123456789abcdef_another-guess")
            .await,
        send(app.request(Method::GET, "/usage")).await,
    ] {
        let error = reply.error(429, "RATE_LIMITED");
        let retry_after = reply.header_u64("retry-after");
        assert!((1..=60).contains(&retry_after), "Retry-After {retry_after}");
        assert_eq!(error["retryAfter"], retry_after);
        assert_eq!(reply.header_u64("x-ratelimit-limit"), 3);
        assert_eq!(reply.header_u64("x-ratelimit-remaining"), 0);
        assert!(reply.header_u64("x-ratelimit-reset") as i64 >= unix_now());
    }
    // A valid key is not a failure: it still gets through.
    app.get("/forms", &valid).await.ok(200);
}

#[tokio::test]
async fn body_above_the_limit_is_413() {
    let app = TestApp::spawn_with(&["--max-body-bytes", "1024"]).await;
    let key = app.key(PRO, ALL).await;
    let small = json!({"title": "Fits", "description": "d".repeat(900)});
    assert!(serde_json::to_vec(&small).expect("json").len() < 1024);
    let form = app.create_form(&key, &small).await;
    let big = json!({"title": "Too big", "description": "d".repeat(2000)});
    app.post("/forms", &key, &big)
        .await
        .error(413, "PAYLOAD_TOO_LARGE");
    let path = format!("/forms/{}", form["id"].as_str().expect("id"));
    app.put(&path, &key, &big)
        .await
        .error(413, "PAYLOAD_TOO_LARGE");
    // Authentication still comes first.
    send(app.request(Method::POST, "/forms").json(&big))
        .await
        .error(401, "UNAUTHENTICATED");
    // The limit holds for bodies without a Content-Length (chunked) too.
    let body = serde_json::to_string(&big).expect("json");
    let (head, tail) = body.split_at(body.len() / 2);
    let mut raw = format!(
        "POST /api/v1/forms HTTP/1.1\r\nHost: localhost\r\nx-api-key: {key}\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    for chunk in [head, tail] {
        raw.push_str(&format!("{:x}\r\n{chunk}\r\n", chunk.len()));
    }
    raw.push_str("0\r\n\r\n");
    let answer = raw_http(app.server.http_addr.expect("addr"), raw.as_bytes()).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("PAYLOAD_TOO_LARGE"), "{answer}");

    let list = app.get("/forms", &key).await;
    let data = list.ok(200);
    assert_eq!(data["pagination"]["total"], 1);
    assert_eq!(data["forms"][0]["title"], "Fits");
    // Refused bodies count as requests and errors of the key.
    let usage = app.get("/usage", &key).await;
    let data = usage.ok(200);
    assert_eq!(data["total_requests"], 6);
    assert_eq!(data["total_errors"], 3);
}

/// Sends raw bytes to `addr` and reads the whole answer (the request should say
/// `Connection: close`).
async fn raw_http(addr: std::net::SocketAddr, request: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request).await.expect("write");
    let mut answer = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        stream.read_to_end(&mut answer),
    )
    .await
    .expect("answer in time")
    .expect("read");
    String::from_utf8_lossy(&answer).into_owned()
}

#[tokio::test]
async fn default_body_limit_is_one_mebibyte() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let big = json!({"title": "Huge", "settings": {"blob": "x".repeat(1024 * 1024)}});
    app.post("/forms", &key, &big)
        .await
        .error(413, "PAYLOAD_TOO_LARGE");
}

/// Failed authentications from `forwarded` (as an `X-Forwarded-For` value) until the
/// throttle answers 429; how many 401s came first (stops at 10).
pub(crate) async fn failures_before_throttled(app: &TestApp, forwarded: &str) -> usize {
    for n in 0..10 {
        let reply = send(
            app.request(Method::GET, "/forms")
                .header("x-api-key", "fsk_0123456789abcdef_guessguessguess")
                .header("x-forwarded-for", forwarded),
        )
        .await;
        match reply.status {
            401 => continue,
            429 => return n,
            other => panic!("{other}: {}", reply.text),
        }
    }
    10
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_visitor_has_its_own_throttle() {
    // The tests' client connects from 127.0.0.1: here it is the trusted proxy.
    let app = TestApp::spawn_with(&[
        "--auth-failures-per-minute",
        "2",
        "--trusted-proxies",
        "127.0.0.1",
    ])
    .await;
    assert_eq!(failures_before_throttled(&app, "198.51.100.1").await, 2);
    // Another visitor behind the same proxy is not throttled with the first...
    assert_eq!(failures_before_throttled(&app, "198.51.100.2").await, 2);
    // ...and the same visitor spelled as an IPv4-mapped address is the same visitor.
    assert_eq!(
        failures_before_throttled(&app, "::ffff:198.51.100.1").await,
        0
    );
    // IPv6 visitors are throttled by their /64: another address of it is no escape.
    assert_eq!(failures_before_throttled(&app, "2001:db8:1:2::1").await, 2);
    assert_eq!(
        failures_before_throttled(&app, "2001:db8:1:2::beef").await,
        0
    );
    assert_eq!(failures_before_throttled(&app, "2001:db8:1:3::1").await, 2);
    // A client cannot pick its address by prepending to the header: the proxy's hop
    // (the rightmost) is the one believed.
    assert_eq!(
        failures_before_throttled(&app, "203.0.113.50, 198.51.100.1").await,
        0
    );
}

#[tokio::test]
async fn forwarded_headers_from_untrusted_peers_are_ignored() {
    let app = TestApp::spawn_with(&["--auth-failures-per-minute", "2"]).await;
    assert_eq!(failures_before_throttled(&app, "198.51.100.1").await, 2);
    // A new header value is no new identity: it is the same peer.
    assert_eq!(failures_before_throttled(&app, "198.51.100.2").await, 0);
}
