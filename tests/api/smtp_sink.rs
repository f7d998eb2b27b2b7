//! A small SMTP server for the notification tests: it speaks enough ESMTP (RFC 5321)
//! for a real client (EHLO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT),
//! offers no STARTTLS, keeps every message it accepts, and can be stopped and started
//! again on the same address (a relay that is down and comes back), and can be slow to
//! accept the mails of a given recipient (a relay busy with one account's mail). Also a
//! small MIME
//! reader, to check the text and HTML parts as a mail client would decode them.

use base64::{Engine, engine::general_purpose::STANDARD};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// One accepted message.
#[derive(Debug, Clone)]
pub struct Mail {
    pub from: String,
    pub to: Vec<String>,
    /// The message as sent after DATA (headers and body), dot-unstuffed.
    pub data: String,
}

/// The sink: its address, what it accepted, and its accept loop while it runs.
pub struct SmtpSink {
    pub addr: SocketAddr,
    mails: Arc<Mutex<Vec<Mail>>>,
    /// How long the sink takes to accept a mail to each slow recipient.
    slow: Slow,
    task: Option<JoinHandle<()>>,
}

type Slow = Arc<Mutex<HashMap<String, Duration>>>;

impl SmtpSink {
    /// A sink on a free loopback port.
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binding the sink");
        let addr = listener.local_addr().expect("sink address");
        let mails = Arc::default();
        let mut sink = SmtpSink {
            addr,
            mails,
            slow: Slow::default(),
            task: None,
        };
        sink.serve(listener);
        sink
    }

    /// A free loopback address with nothing listening on it (yet).
    pub async fn free_addr() -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("binding");
        listener.local_addr().expect("address")
    }

    /// A sink that is down: its address refuses connections until [`SmtpSink::resume`].
    pub async fn down() -> SmtpSink {
        SmtpSink {
            addr: Self::free_addr().await,
            mails: Arc::default(),
            slow: Slow::default(),
            task: None,
        }
    }

    /// Starts listening again on the same address.
    pub async fn resume(&mut self) {
        let listener = TcpListener::bind(self.addr)
            .await
            .expect("rebinding the sink");
        self.serve(listener);
    }

    /// From now on, a mail to `recipient` is accepted `delay` after its data ends.
    pub fn slow_for(&self, recipient: &str, delay: Duration) {
        let mut slow = self.slow.lock().expect("slow lock");
        slow.insert(recipient.to_owned(), delay);
    }

    fn serve(&mut self, listener: TcpListener) {
        let (mails, slow) = (self.mails.clone(), self.slow.clone());
        self.task = Some(tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                tokio::spawn(session(stream, mails.clone(), slow.clone()));
            }
        }));
    }

    pub fn url(&self) -> String {
        format!("smtp://{}", self.addr)
    }

    pub fn mails(&self) -> Vec<Mail> {
        self.mails.lock().expect("mails lock").clone()
    }
}

impl Drop for SmtpSink {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

async fn session(stream: TcpStream, mails: Arc<Mutex<Vec<Mail>>>, slow: Slow) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    if write.write_all(b"220 sink ESMTP ready\r\n").await.is_err() {
        return;
    }
    let (mut from, mut to) = (String::new(), Vec::new());
    while let Ok(Some(line)) = lines.next_line().await {
        let upper = line.to_ascii_uppercase();
        let answer: String = if upper.starts_with("EHLO") {
            "250-sink greets you\r\n250-8BITMIME\r\n250 SIZE 10485760\r\n".into()
        } else if upper.starts_with("HELO") || upper.starts_with("NOOP") {
            "250 OK\r\n".into()
        } else if upper.starts_with("MAIL FROM:") {
            from = angle(&line);
            to.clear();
            "250 OK\r\n".into()
        } else if upper.starts_with("RCPT TO:") {
            to.push(angle(&line));
            "250 OK\r\n".into()
        } else if upper.starts_with("RSET") {
            from.clear();
            to.clear();
            "250 OK\r\n".into()
        } else if upper == "DATA" {
            if write
                .write_all(b"354 end with <CRLF>.<CRLF>\r\n")
                .await
                .is_err()
            {
                return;
            }
            let mut data = String::new();
            while let Ok(Some(line)) = lines.next_line().await {
                if line == "." {
                    break;
                }
                // Dot-stuffing: a line starting with "." was sent with one more.
                let line = line.strip_prefix('.').unwrap_or(&line);
                data.push_str(line);
                data.push_str("\r\n");
            }
            let delay = {
                let slow = slow.lock().expect("slow lock");
                to.iter().filter_map(|r| slow.get(r)).max().copied()
            };
            if let Some(delay) = delay {
                tokio::time::sleep(delay).await;
            }
            let mut all = mails.lock().expect("mails lock");
            all.push(Mail {
                from: from.clone(),
                to: to.clone(),
                data,
            });
            format!("250 OK queued as {}\r\n", all.len())
        } else if upper.starts_with("QUIT") {
            let _ = write.write_all(b"221 bye\r\n").await;
            return;
        } else {
            "502 command not implemented\r\n".into()
        };
        if write.write_all(answer.as_bytes()).await.is_err() {
            return;
        }
    }
}

/// `MAIL FROM:<a@b> SIZE=1` → `a@b`.
fn angle(line: &str) -> String {
    let start = line.find('<').map_or(0, |i| i + 1);
    let end = line[start..].find('>').map_or(line.len(), |i| start + i);
    line[start..end].to_owned()
}

// ---------------------------------------------------------------------------------------
// Reading the message
// ---------------------------------------------------------------------------------------

/// A header of the message's top level (unfolded), if present.
pub fn header(data: &str, name: &str) -> Option<String> {
    let head = data.split("\r\n\r\n").next().unwrap_or("");
    let unfolded = head.replace("\r\n ", " ").replace("\r\n\t", " ");
    unfolded.lines().find_map(|l| {
        let (n, v) = l.split_once(':')?;
        n.trim()
            .eq_ignore_ascii_case(name)
            .then(|| v.trim().to_owned())
    })
}

/// The decoded body of the first part whose Content-Type starts with `media_type`,
/// with its line breaks as `\n`.
pub fn part(data: &str, media_type: &str) -> Option<String> {
    for chunk in data.split("\r\n--") {
        let Some((head, body)) = chunk.split_once("\r\n\r\n") else {
            continue;
        };
        let ty = header(&format!("{head}\r\n\r\n"), "Content-Type").unwrap_or_default();
        if !ty.to_ascii_lowercase().starts_with(media_type) {
            continue;
        }
        let encoding = header(&format!("{head}\r\n\r\n"), "Content-Transfer-Encoding")
            .unwrap_or_default()
            .to_ascii_lowercase();
        // The part ends where the next boundary line starts (already split off).
        let decoded = match encoding.as_str() {
            "base64" => {
                let compact: String = body.split_whitespace().collect();
                String::from_utf8(STANDARD.decode(compact).expect("base64 part"))
                    .expect("UTF-8 part")
            }
            "quoted-printable" => quoted_printable(body),
            _ => body.to_owned(),
        };
        return Some(decoded.replace("\r\n", "\n"));
    }
    None
}

fn quoted_printable(body: &str) -> String {
    let mut bytes = Vec::new();
    let raw = body.replace("=\r\n", "");
    let mut chars = raw.bytes();
    while let Some(b) = chars.next() {
        if b == b'=' {
            let hex: Vec<u8> = chars.by_ref().take(2).collect();
            let text = std::str::from_utf8(&hex).expect("hex");
            bytes.push(u8::from_str_radix(text, 16).expect("QP escape"));
        } else {
            bytes.push(b);
        }
    }
    String::from_utf8(bytes).expect("UTF-8 part")
}
