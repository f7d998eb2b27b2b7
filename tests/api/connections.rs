//! The REST server's connection bounds, with raw sockets: a client that trickles its
//! headers, one that leaves a keep-alive connection idle, and one that opens more
//! connections than the cap are all dropped within bounded time.

use crate::fixtures::eventually;
use crate::harness::*;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A generous bound for "closed by the server": far above the configured time-outs,
/// far below "never".
const CLOSED_WITHIN: Duration = Duration::from_secs(20);

fn http_addr(app: &TestApp) -> SocketAddr {
    app.server.http_addr.expect("REST address")
}

/// Reads until the server closes the connection; everything read.
async fn read_until_closed(stream: &mut TcpStream) -> Vec<u8> {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let closed = tokio::time::timeout(CLOSED_WITHIN, async {
        loop {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    assert!(
        closed.is_ok(),
        "the server kept the connection open; read so far: {}",
        String::from_utf8_lossy(&seen)
    );
    seen
}

/// Whether the connection is still open after `wait` (nothing to read, no EOF).
async fn still_open(stream: &mut TcpStream, wait: Duration) -> bool {
    let mut buf = [0u8; 64];
    tokio::time::timeout(wait, stream.read(&mut buf))
        .await
        .is_err()
}

#[tokio::test]
async fn a_client_trickling_its_headers_is_dropped() {
    let app = TestApp::spawn_with(&["--http-header-timeout", "1s"]).await;
    let mut stream = TcpStream::connect(http_addr(&app)).await.expect("connect");
    stream
        .write_all(b"GET /api/v1/forms HTTP/1.1\r\nHost: x\r\n")
        .await
        .expect("write");
    // One header byte every 200 ms: never a complete request.
    let (mut reader, mut writer) = stream.into_split();
    let trickle = tokio::spawn(async move {
        for _ in 0..200 {
            if writer.write_all(b"X").await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    let mut buf = [0u8; 1024];
    let closed = tokio::time::timeout(CLOSED_WITHIN, async {
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    trickle.abort();
    assert!(closed.is_ok(), "a trickling client kept its connection");
    // The server itself is fine.
    let key = app.key(PRO, ALL).await;
    app.get("/forms", &key).await.ok(200);
}

#[tokio::test]
async fn an_idle_keep_alive_connection_is_closed() {
    let app = TestApp::spawn_with(&["--http-header-timeout", "1s"]).await;
    let mut stream = TcpStream::connect(http_addr(&app)).await.expect("connect");
    stream
        .write_all(b"GET /api/v1/usage HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("write");
    // The answer (401: no key) comes, then the idle connection is closed.
    let seen = read_until_closed(&mut stream).await;
    let text = String::from_utf8_lossy(&seen);
    assert!(text.starts_with("HTTP/1.1 401"), "{text}");
    assert!(text.contains("UNAUTHENTICATED"), "{text}");
}

#[tokio::test]
async fn connections_over_the_cap_are_closed_at_once() {
    let app = TestApp::spawn_with(&[
        "--http-max-connections",
        "3",
        "--http-header-timeout",
        "60s",
    ])
    .await;
    let addr = http_addr(&app);
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(TcpStream::connect(addr).await.expect("connect"));
    }
    // The fourth is accepted and closed without an answer.
    let mut over = TcpStream::connect(addr).await.expect("connect");
    let seen = read_until_closed(&mut over).await;
    assert!(seen.is_empty(), "{}", String::from_utf8_lossy(&seen));
    // The first three are still open...
    for stream in &mut held {
        assert!(still_open(stream, Duration::from_millis(300)).await);
    }
    // ...and when one goes, its place serves a request again.
    held.pop();
    let key = app.key(PRO, ALL).await;
    eventually("a freed place serves", CLOSED_WITHIN, || async {
        let reply = app
            .client
            .get(format!("{}/forms", app.http_base))
            .header("x-api-key", &key)
            .send()
            .await;
        reply.is_ok_and(|r| r.status() == 200).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_body_that_stops_arriving_gets_408_in_the_envelope() {
    let app = TestApp::spawn_with(&["--http-body-timeout", "1s"]).await;
    let key = app.key(PRO, ALL).await;
    let mut stream = TcpStream::connect(http_addr(&app)).await.expect("connect");
    let head = format!(
        "POST /api/v1/forms HTTP/1.1\r\nHost: x\r\nx-api-key: {key}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{{\"title\""
    );
    stream.write_all(head.as_bytes()).await.expect("write");
    // The rest of the body never comes; the answer does.
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let answered = tokio::time::timeout(CLOSED_WITHIN, async {
        while !String::from_utf8_lossy(&seen).contains("}}") {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let text = String::from_utf8_lossy(&seen);
    assert!(answered.is_ok(), "no answer: {text}");
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"code\":\"REQUEST_TIMEOUT\""), "{text}");
    // Counted like any other request of the key, with its rate-limit headers.
    assert!(
        text.to_ascii_lowercase().contains("x-ratelimit-remaining"),
        "{text}"
    );
}
