//! Files uploaded with hosted pages: checked, streamed under each field's limit after
//! the submission is admitted, written before the form is locked, stored in PostgreSQL
//! or an object store, deleted with their response, and swept when no response claims
//! them.

use crate::fixtures::*;
use crate::harness::*;
use crate::hosted::{DESKTOP, Page, Visitor};
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

/// A tiny but valid PNG.
pub const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\0\0\0\0IEND\xaeB`\x82";

/// A multipart/form-data body: text parts, then file parts (field, file name, bytes).
pub fn multipart(texts: &[(&str, &str)], files: &[(&str, &str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "formsdtestboundary7MA4YWxkTrZu0gW";
    let mut body = Vec::new();
    for (name, value) in texts {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (name, file_name, content) in files {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{file_name}\"\r\nContent-Type: application/octet-stream\r\n\r\n").as_bytes(),
        );
        body.extend_from_slice(content);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

impl Visitor {
    pub async fn submit_multipart(
        &mut self,
        short_id: &str,
        texts: &[(&str, &str)],
        files: &[(&str, &str, &[u8])],
    ) -> Page {
        let (content_type, body) = multipart(texts, files);
        let mut request = self
            .client
            .post(format!("{}/f/{short_id}", self.origin))
            .header("content-type", content_type)
            .header("user-agent", DESKTOP)
            .body(body);
        if let Some(cookie) = &self.cookie {
            request = request.header("cookie", cookie);
        }
        let reply = request.send().await.expect("POST page");
        self.finish(reply).await
    }
}

fn upload_fields() -> Value {
    json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "file_upload", "label": "Photo", "required": true, "allowed_types": ["png", "jpg"], "max_size_mb": 0.5},
    ])
}

#[tokio::test]
async fn files_are_checked_stored_downloadable_and_deleted_with_their_response() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let short_id = form["short_id"].as_str().expect("short id");
    let form_id = form["id"].as_str().expect("form id");
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    let page = visitor.open(short_id).await;
    assert!(page.html.contains("enctype=\"multipart/form-data\""));
    assert!(page.html.contains("accept=\".png,.jpg\""));

    // Wrong content for the extension, a type not allowed, too large, missing.
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("photo.jpg", PNG.to_vec(), "looks like a .png file"),
        ("photo.gif", PNG.to_vec(), "must be one of: png, jpg"),
        (
            "photo.png",
            [PNG, &vec![0u8; 600 * 1024]].concat(),
            "is larger than this field takes (0.5 MB)",
        ),
    ];
    for (name, content, message) in cases {
        let token = visitor.open(short_id).await.token();
        let page = visitor
            .submit_multipart(
                short_id,
                &[("_token", &token), (&f[0], "Ada")],
                &[(&f[1], name, &content)],
            )
            .await;
        // A file past its field's limit is refused as it streams in, with a page of its
        // own (the answers are not kept: the rest of the body is not read).
        let status = if message.contains("larger") { 413 } else { 422 };
        assert_eq!(page.status, status, "{name}");
        assert!(page.html.contains(message), "{name}: expected {message:?}");
    }
    let token = visitor.open(short_id).await.token();
    let page = visitor
        .submit_multipart(short_id, &[("_token", &token), (&f[0], "Ada")], &[])
        .await;
    assert_eq!(page.status, 422);
    assert!(page.html.contains("Photo is required"));

    // A good file.
    let token = visitor.open(short_id).await.token();
    let page = visitor
        .submit_multipart(
            short_id,
            &[("_token", &token), (&f[0], "Ada")],
            &[(&f[1], "me.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);
    let list = app.get(&format!("/forms/{form_id}/responses"), &key).await;
    let response = list.ok(200)["responses"][0].clone();
    let answer = &response["answers"][&f[1]];
    assert_eq!(answer["name"], "me.png");
    assert_eq!(answer["size"], PNG.len());
    assert_eq!(answer["content_type"], "image/png");
    let file_id = answer["file_id"].as_str().expect("file id");
    let response_id = response["id"].as_str().expect("response id");
    let path = format!("/forms/{form_id}/responses/{response_id}/files/{file_id}");
    let download = app
        .request(Method::GET, &path)
        .header("x-api-key", &key)
        .send()
        .await
        .expect("download");
    assert_eq!(download.status(), 200);
    assert_eq!(download.headers()["content-type"], "image/png");
    assert_eq!(
        download.headers()["content-disposition"],
        "attachment; filename=\"me.png\""
    );
    assert_eq!(download.headers()["x-content-type-options"], "nosniff");
    assert_eq!(download.bytes().await.expect("bytes").as_ref(), PNG);
    // Another account cannot download it.
    let stranger = app.key(PRO, ALL).await;
    app.get(&path, &stranger).await.error(404, "NOT_FOUND");
    // Deleting the response deletes the file.
    app.delete(&format!("/forms/{form_id}/responses/{response_id}"), &key)
        .await;
    app.get(&path, &key).await.error(404, "NOT_FOUND");
    let (left,): (i64,) = sqlx::query_as("SELECT count(*) FROM response_files")
        .fetch_one(&app.pool)
        .await
        .expect("count files");
    assert_eq!(left, 0);
}

#[tokio::test]
async fn deleting_a_form_deletes_its_files() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let short_id = form["short_id"].as_str().expect("short id");
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(short_id).await.token();
    let page = visitor
        .submit_multipart(
            short_id,
            &[("_token", &token), (&f[0], "Ada")],
            &[(&f[1], "me.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200);
    let count = || async {
        let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM response_files")
            .fetch_one(&app.pool)
            .await
            .expect("count");
        n
    };
    assert_eq!(count().await, 1);
    app.delete(
        &format!("/forms/{}", form["id"].as_str().expect("id")),
        &key,
    )
    .await;
    assert_eq!(count().await, 0);
}

#[tokio::test]
async fn files_can_live_in_an_object_store_named_by_url() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("file://{}", dir.path().display());
    let app = TestApp::spawn_with(&["--file-store-url", &url]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let (short_id, form_id) = (
        form["short_id"].as_str().expect("short id"),
        form["id"].as_str().expect("id"),
    );
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    for name in ["a.png", "b.png"] {
        let token = visitor.open(short_id).await.token();
        let page = visitor
            .submit_multipart(
                short_id,
                &[("_token", &token), (&f[0], name)],
                &[(&f[1], name, PNG)],
            )
            .await;
        assert_eq!(page.status, 200);
    }
    let stored =
        |dir: &std::path::Path| std::fs::read_dir(dir.join("files")).map_or(0, |d| d.count());
    assert_eq!(stored(dir.path()), 2, "one object per file");
    let (in_rows,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM response_files WHERE content IS NOT NULL")
            .fetch_one(&app.pool)
            .await
            .expect("count");
    assert_eq!(in_rows, 0, "no bytes in the database");

    let responses = app
        .get(&format!("/forms/{form_id}/responses"), &key)
        .await
        .ok(200)["responses"]
        .clone();
    let first = &responses[0];
    assert_eq!(download(&app, &key, form_id, first, &f[1]).await, PNG);

    app.delete(
        &format!(
            "/forms/{form_id}/responses/{}",
            first["id"].as_str().expect("id")
        ),
        &key,
    )
    .await;
    assert_eq!(
        stored(dir.path()),
        1,
        "the response's object is deleted with it"
    );
    app.delete(&format!("/forms/{form_id}"), &key).await;
    assert_eq!(stored(dir.path()), 0, "and the form's with the form");
}

/// An S3-compatible server (s3rver, from npm) on a free port with one bucket.
struct S3 {
    child: tokio::process::Child,
    endpoint: String,
    dir: tempfile::TempDir,
}

async fn start_s3() -> Option<S3> {
    let bin = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/node_modules/.bin/s3rver"
    ));
    if !bin.exists() {
        assert!(
            std::env::var("FORMS_REQUIRE_NODE_TOOLS").as_deref() != Ok("1"),
            "s3rver missing: run npm install"
        );
        eprintln!("SKIPPED: the S3 test needs node_modules/.bin/s3rver (npm install)");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let dir = tempfile::tempdir().expect("temp dir");
    let child = tokio::process::Command::new(bin)
        .args([
            "-a",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "--configure-bucket",
            "forms-bucket",
            "-d",
        ])
        .arg(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("starting s3rver");
    let endpoint = format!("http://127.0.0.1:{port}");
    let up = eventually("s3rver listening", Duration::from_secs(20), || async {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .ok()
            .map(|_| ())
    });
    up.await;
    Some(S3 {
        child,
        endpoint,
        dir,
    })
}

#[tokio::test]
async fn files_can_live_in_an_s3_compatible_store() {
    let Some(mut s3) = start_s3().await else {
        return;
    };
    let db = TestDb::create().await;
    let mut cmd = formsd_command();
    cmd.env("AWS_ACCESS_KEY_ID", "S3RVER")
        .env("AWS_SECRET_ACCESS_KEY", "S3RVER")
        .env("AWS_ENDPOINT", &s3.endpoint)
        .env("AWS_ALLOW_HTTP", "true")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_VIRTUAL_HOSTED_STYLE_REQUEST", "false");
    let args = serve_args(&db.url, &["--file-store-url", "s3://forms-bucket/uploads"]);
    let server = Formsd::start_with(cmd, &args).await;
    let app = TestApp::from_parts(server, db).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let (short_id, form_id) = (
        form["short_id"].as_str().expect("short id"),
        form["id"].as_str().expect("id"),
    );
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(short_id).await.token();
    let page = visitor
        .submit_multipart(
            short_id,
            &[("_token", &token), (&f[0], "Ada")],
            &[(&f[1], "me.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);
    let objects = |dir: &std::path::Path| {
        std::fs::read_dir(dir.join("forms-bucket/uploads/files")).map_or(0, |d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_name().to_string_lossy().ends_with("._S3rver_object"))
                .count()
        })
    };
    assert_eq!(
        objects(s3.dir.path()),
        1,
        "the file is an object in the bucket"
    );
    let response = app
        .get(&format!("/forms/{form_id}/responses"), &key)
        .await
        .ok(200)["responses"][0]
        .clone();
    assert_eq!(download(&app, &key, form_id, &response, &f[1]).await, PNG);
    app.delete(&format!("/forms/{form_id}"), &key).await;
    assert_eq!(objects(s3.dir.path()), 0, "deleted with its form");
    let _ = s3.child.kill().await;
}

/// The start of a multipart body: text parts, then the head of one file part and the
/// first `file_bytes` bytes of its content, without the rest.
fn unfinished_multipart(texts: &[(&str, &str)], file_field: &str, file_bytes: usize) -> Vec<u8> {
    let mut body = Vec::new();
    for (name, value) in texts {
        body.extend_from_slice(
            format!(
                "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    body.extend_from_slice(
        format!(
            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"{file_field}\"; filename=\"big.png\"\r\nContent-Type: image/png\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(PNG);
    body.resize(body.len() + file_bytes.saturating_sub(PNG.len()), 0);
    body
}

/// How long a test waits for what happens in the background.
const LONG: Duration = Duration::from_secs(30);

const BOUNDARY: &str = "formsdtestboundaryUnfinished";

/// Posts a submission that declares a 50 MiB body, sends `sent` of it and then nothing
/// more, and returns the page the server answers with. A server that read whole
/// submissions before looking at them would wait for the rest until its body time-out
/// (2 minutes); the answer must come while the body is still unfinished.
async fn answer_to_unfinished(
    app: &TestApp,
    short_id: &str,
    cookie: Option<&str>,
    sent: &[u8],
) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = app.server.http_addr.expect("REST address");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    let cookie = cookie
        .map(|c| format!("Cookie: {c}\r\n"))
        .unwrap_or_default();
    let head = format!(
        "POST /f/{short_id} HTTP/1.1\r\nHost: {addr}\r\nUser-Agent: {DESKTOP}\r\n{cookie}\
         Content-Type: multipart/form-data; boundary={BOUNDARY}\r\nContent-Length: {}\r\n\r\n",
        50 * 1024 * 1024
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    // The server may answer and close before taking everything sent.
    let _ = stream.write_all(sent).await;
    let mut reply = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut reply)).await;
    assert!(read.is_ok(), "no answer while the body was unfinished");
    let reply = String::from_utf8_lossy(&reply).into_owned();
    let status = reply
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP reply: {reply:.200}"));
    (status, reply)
}

#[tokio::test]
async fn a_submission_is_judged_before_its_files_are_read() {
    // Three admissions a minute: the fourth submission with a file is throttled.
    let app = TestApp::spawn_with(&["--hosted-submissions-per-minute", "3"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let short_id = form["short_id"].as_str().expect("short id");
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(short_id).await.token();
    let cookie = visitor.cookie.clone();
    let cookie = cookie.as_deref();

    let (status, page) = answer_to_unfinished(
        &app,
        "nosuchform",
        cookie,
        &unfinished_multipart(&[("_token", &token)], &f[1], 64 * 1024),
    )
    .await;
    assert_eq!(status, 404, "{page:.400}");

    // A forged token: the page again, with the answers that came before the file.
    let (status, page) = answer_to_unfinished(
        &app,
        short_id,
        cookie,
        &unfinished_multipart(
            &[("_token", "forged"), (&f[0], "Ada Lovelace")],
            &f[1],
            64 * 1024,
        ),
    )
    .await;
    assert_eq!(status, 403, "{page:.400}");
    assert!(page.contains("This page had expired"), "{page:.2000}");
    assert!(page.contains("value=\"Ada Lovelace\""), "answers kept");

    // A file past its field's limit (0.5 MB) is refused once the limit is passed.
    let (status, page) = answer_to_unfinished(
        &app,
        short_id,
        cookie,
        &unfinished_multipart(&[("_token", &token), (&f[0], "Ada")], &f[1], 600 * 1024),
    )
    .await;
    assert_eq!(status, 413, "{page:.400}");
    assert!(
        page.contains("larger than this field takes (0.5 MB)"),
        "{page:.2000}"
    );

    let (status, page) = answer_to_unfinished(
        &app,
        short_id,
        cookie,
        &unfinished_multipart(&[("_token", &token), (&f[0], "Ada")], &f[1], 64 * 1024),
    )
    .await;
    assert_eq!(status, 429, "{page:.400}");
    assert!(page.contains("Too many submissions"));

    let (files,): (i64,) = sqlx::query_as("SELECT count(*) FROM response_files")
        .fetch_one(&app.pool)
        .await
        .expect("count");
    assert_eq!(files, 0, "nothing of a refused submission was written");
}

#[tokio::test]
async fn a_second_file_for_a_field_is_refused_before_it_is_read() {
    // A file field's limit is spent on its first file: a second file for the same
    // field is not read against a fresh limit (256 parts of one name would each be
    // read up to the limit), the core refuses it by name.
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let short_id = form["short_id"].as_str().expect("short id");
    let f = field_ids(&form);
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(short_id).await.token();
    // Past the field's 0.5 MB: read, it would be refused as too large.
    let second = [PNG, &vec![0u8; 600 * 1024]].concat();
    let page = visitor
        .submit_multipart(
            short_id,
            &[("_token", &token), (&f[0], "Ada")],
            &[(&f[1], "one.png", PNG), (&f[1], "two.png", &second)],
        )
        .await;
    assert_eq!(page.status, 422, "{:.2000}", page.html);
    assert!(
        page.html.contains("Photo takes one file"),
        "{:.2000}",
        page.html
    );
    assert_eq!(
        file_rows(&app.pool).await,
        (0, 0),
        "nothing of a refused submission was kept"
    );
}

async fn file_rows(pool: &sqlx::PgPool) -> (i64, i64) {
    sqlx::query_as(
        "SELECT count(*) FILTER (WHERE response_id IS NOT NULL),
                count(*) FILTER (WHERE response_id IS NULL) FROM response_files",
    )
    .fetch_one(pool)
    .await
    .expect("count files")
}

/// Locks the form, as a submission storing a response does, and starts a visitor's
/// submission of `name` with the PNG as `file_name`, which waits for that lock. The
/// lock is held until the returned transaction is dropped.
async fn submit_while_locked(
    app: &TestApp,
    form: &Value,
    mut visitor: Visitor,
    (name, file_name): (&'static str, &'static str),
) -> (
    sqlx::Transaction<'static, sqlx::Postgres>,
    tokio::task::JoinHandle<Page>,
) {
    let lock = lock_form(&app.pool, form["id"].as_str().expect("form id")).await;
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let token = visitor.open(&short_id).await.token();
    let f = field_ids(form);
    let submission = tokio::spawn(async move {
        visitor
            .submit_multipart(
                &short_id,
                &[("_token", &token), (&f[0], name)],
                &[(&f[1], file_name, PNG)],
            )
            .await
    });
    (lock, submission)
}

#[tokio::test]
async fn files_are_written_before_the_form_is_locked() {
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let f = field_ids(&form);

    // A submission refused for its answers (no name) keeps its file staged, unattached,
    // for the refused page's next post (`kept_files::`).
    let mut visitor = Visitor::new(&app);
    let token = visitor.open(&short_id).await.token();
    let page = visitor
        .submit_multipart(&short_id, &[("_token", &token)], &[(&f[1], "me.png", PNG)])
        .await;
    assert_eq!(page.status, 422, "{}", page.html);
    assert_eq!(
        file_rows(&app.pool).await,
        (0, 1),
        "refused: its file is kept for the next post"
    );

    // While the form is locked, the new file is already written, unattached.
    let (lock, submission) = submit_while_locked(&app, &form, visitor, ("Ada", "me.png")).await;
    eventually("the file staged while the form is locked", LONG, || async {
        (file_rows(&app.pool).await == (0, 2)).then_some(())
    })
    .await;
    assert!(
        !submission.is_finished(),
        "the submission waits for the lock"
    );
    drop(lock);
    let page = submission.await.expect("submission");
    assert_eq!(page.status, 200, "{}", page.html);
    // The new file is the response's; the kept one, not sent again, waits for the
    // sweep at the end of its day.
    assert_eq!(
        file_rows(&app.pool).await,
        (1, 1),
        "attached to its response"
    );
}

#[tokio::test]
async fn files_of_a_submission_cut_off_by_a_crash_are_swept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!("file://{}", dir.path().display());
    let flags = [
        "--file-store-url",
        url.as_str(),
        "--staged-file-grace",
        "1s",
    ];
    let db = TestDb::create().await;
    let mut app = TestApp::spawn_on(db.clone(), &flags).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let form_id = form["id"].as_str().expect("id");
    let f = field_ids(&form);
    let objects = || std::fs::read_dir(dir.path().join("files")).map_or(0, |d| d.count());

    let mut visitor = Visitor::new(&app);
    let token = visitor.open(&short_id).await.token();
    let page = visitor
        .submit_multipart(
            &short_id,
            &[("_token", &token), (&f[0], "Kept")],
            &[(&f[1], "kept.png", PNG)],
        )
        .await;
    assert_eq!(page.status, 200, "{}", page.html);

    // A submission whose file is written, stopped by kill -9 before its commit.
    let (lock, submission) = submit_while_locked(&app, &form, visitor, ("Lost", "lost.png")).await;
    eventually("the file staged", LONG, || async {
        (file_rows(&app.pool).await == (1, 1) && objects() == 2).then_some(())
    })
    .await;
    app.server.child.kill().await.expect("kill -9");
    let _ = submission.await;
    drop(lock);

    // The next instance sweeps what no response claimed, and only that.
    let app = TestApp::spawn_on(db, &flags).await;
    eventually("the staged file and its object swept", LONG, || async {
        (file_rows(&app.pool).await == (1, 0) && objects() == 1).then_some(())
    })
    .await;
    let responses = app.get(&format!("/forms/{form_id}/responses"), &key).await;
    let responses = responses.ok(200)["responses"].clone();
    assert_eq!(responses.as_array().map(Vec::len), Some(1));
    let response = &responses[0];
    assert_eq!(download(&app, &key, form_id, response, &f[1]).await, PNG);
}

/// The bytes of the file a response holds for `field`, downloaded with `key`.
async fn download(
    app: &TestApp,
    key: &str,
    form_id: &str,
    response: &Value,
    field: &str,
) -> Vec<u8> {
    let path = format!(
        "/forms/{form_id}/responses/{}/files/{}",
        response["id"].as_str().expect("id"),
        response["answers"][field]["file_id"]
            .as_str()
            .expect("file id")
    );
    let reply = app
        .request(Method::GET, &path)
        .header("x-api-key", key)
        .send()
        .await
        .expect("download");
    reply.bytes().await.expect("bytes").to_vec()
}

#[tokio::test]
async fn a_submission_whose_staged_file_was_swept_stores_nothing() {
    // Its file is swept while it waits for the form's lock: attaching the file fails
    // after the response was written, and the whole submission is rolled back (no
    // response, no quota, no count) rather than stored without its file and events.
    let app = TestApp::spawn().await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, upload_fields(), Value::Null).await;
    let form_id = form["id"].as_str().expect("id").to_owned();
    let visitor = Visitor::new(&app);
    let (lock, submission) = submit_while_locked(&app, &form, visitor, ("Ada", "me.png")).await;
    eventually("the file staged while the form is locked", LONG, || async {
        (file_rows(&app.pool).await == (0, 1)).then_some(())
    })
    .await;
    // What the sweep does to a staged file past its grace period.
    sqlx::query("DELETE FROM response_files WHERE response_id IS NULL")
        .execute(&app.pool)
        .await
        .expect("sweep");
    drop(lock);
    let page = submission.await.expect("submission");
    assert_eq!(page.status, 503, "{}", page.html);
    let stored = count(
        &app,
        "SELECT count(*) FROM responses WHERE form_id = $1",
        &form_id,
    )
    .await;
    assert_eq!(stored, 0, "nothing of the submission is stored");
    let counted = count(
        &app,
        "SELECT response_count FROM forms WHERE id = $1",
        &form_id,
    )
    .await;
    assert_eq!(counted, 0, "nor counted");
    let quota: i64 = sqlx::query_scalar(
        "SELECT coalesce(sum(response_count), 0)::bigint FROM response_quota_usage",
    )
    .fetch_one(&app.pool)
    .await
    .expect("quota");
    assert_eq!(quota, 0, "nor taken from the quota");
}
