//! The streaming export (`GET /forms/{id}/responses/export`, gRPC ExportResponses):
//! every response once, oldest first, from a snapshot; NDJSON in the listing's shape;
//! CSV with labels as headers, RFC 4180 quoting and neutralised formulas; since/until;
//! refusals in the SPEC envelope; one request for rate limit and usage.

use crate::fixtures::*;
use crate::harness::*;
use forms::pb::{
    self, hosted_forms_service_client::HostedFormsServiceClient,
    responses_service_client::ResponsesServiceClient,
};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::future::Future;
use tokio_stream::StreamExt;
use tonic::Code;

/// An app, a Pro key with every scope, and a published form.
pub struct Setup {
    pub app: TestApp,
    pub key: String,
    pub form_id: String,
    pub fields: Vec<String>,
}

impl Setup {
    pub async fn new(fields: Value) -> Setup {
        Self::with(fields, &[]).await
    }

    /// With extra `serve` flags.
    async fn with(fields: Value, flags: &[&str]) -> Setup {
        let app = TestApp::spawn_with(flags).await;
        let key = app.key(PRO, ALL).await;
        let form = published_form(&app, &key, fields, Value::Null).await;
        Setup {
            form_id: form["id"].as_str().expect("form id").to_owned(),
            fields: field_ids(&form),
            app,
            key,
        }
    }

    pub async fn create(&self, answers: Value) -> String {
        let reply = self
            .app
            .post(
                &format!("/forms/{}/responses", self.form_id),
                &self.key,
                &json!({"answers": answers}),
            )
            .await;
        reply.ok(201)["response"]["id"]
            .as_str()
            .expect("response id")
            .to_owned()
    }

    /// Stores `rows` responses of the form straight into the database, one a second
    /// (the newest now), each with an answer of `answer_len` characters: an export of
    /// tens of megabytes, more than every buffer between the export and its reader.
    pub async fn seed(&self, rows: i32, answer_len: i32) {
        let form_id = uuid::Uuid::parse_str(&self.form_id).expect("uuid");
        sqlx::query(
            "INSERT INTO responses (id, form_id, answers, metadata, started_at, submitted_at)
             SELECT gen_random_uuid(), $1, jsonb_build_object($2::text, repeat('y', $4)), '{}',
                    now() - make_interval(secs => $3 - g), now() - make_interval(secs => $3 - g)
               FROM generate_series(1, $3) AS g",
        )
        .bind(form_id)
        .bind(&self.fields[0])
        .bind(rows)
        .bind(answer_len)
        .execute(&self.app.pool)
        .await
        .expect("seeding");
    }

    /// Starts an export with `key`: the reply once its headers are in, its body unread.
    fn start_export(&self, key: &str) -> impl Future<Output = reqwest::Response> + 'static {
        let request = self
            .app
            .request(reqwest::Method::GET, &self.export_path(&[]))
            .header("x-api-key", key);
        async move { request.send().await.expect("export") }
    }

    pub fn export_path(&self, query: &[(&str, &str)]) -> String {
        with_query(&format!("/forms/{}/responses/export", self.form_id), query)
    }

    /// The export, read whole, asserting 200 and the headers of a download.
    pub async fn export(&self, query: &[(&str, &str)]) -> Reply {
        let reply = self.app.get(&self.export_path(query), &self.key).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        reply.assert_common_headers();
        let csv = query.contains(&("format", "csv"));
        let (media_type, extension) = if csv {
            ("text/csv; charset=utf-8", "csv")
        } else {
            ("application/x-ndjson", "ndjson")
        };
        assert_eq!(reply.header("content-type"), media_type);
        assert_eq!(reply.header("x-content-type-options"), "nosniff");
        assert_eq!(
            reply.header("content-disposition"),
            format!(
                "attachment; filename=\"responses-{}.{extension}\"",
                self.form_id
            )
        );
        reply
    }

    /// The cursor listing, oldest first, with the same window.
    async fn listing(&self, window: &[(&str, &str)]) -> Vec<Value> {
        let mut out = Vec::new();
        let mut cursor = String::new();
        loop {
            let mut query = vec![
                ("cursor", cursor.as_str()),
                ("per_page", "100"),
                ("sort", "asc"),
            ];
            query.extend_from_slice(window);
            let path = with_query(&format!("/forms/{}/responses", self.form_id), &query);
            let reply = self.app.get(&path, &self.key).await;
            let data = reply.ok(200).clone();
            out.extend(data["responses"].as_array().expect("responses").clone());
            match data["pagination"]["next_cursor"].as_str() {
                Some(next) => cursor = next.to_owned(),
                None => return out,
            }
        }
    }

    /// Gives the form's responses whole-second submission times one second apart, from
    /// 2026-01-01T00:00:01Z in their present order, so that windows are exact.
    async fn regular_times(&self) {
        sqlx::query(
            "UPDATE responses r SET submitted_at = '2026-01-01T00:00:00Z'::timestamptz + o.n * interval '1 second'
               FROM (SELECT id, row_number() OVER (ORDER BY submitted_at, id) AS n
                       FROM responses WHERE form_id = $1) o
              WHERE r.id = o.id",
        )
        .bind(uuid::Uuid::parse_str(&self.form_id).expect("uuid"))
        .execute(&self.app.pool)
        .await
        .expect("setting submission times");
    }
}

pub fn ndjson(text: &str) -> Vec<Value> {
    assert!(text.is_empty() || text.ends_with('\n'), "unterminated line");
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect()
}

pub fn ids(rows: &[Value]) -> Vec<String> {
    rows.iter()
        .map(|r| r["id"].as_str().expect("id").to_owned())
        .collect()
}

pub fn csv_records(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.expect("a CSV record").iter().map(str::to_owned).collect())
        .collect()
}

#[tokio::test]
async fn ndjson_export_is_every_response_once_oldest_first_in_the_listing_shape() {
    let s = Setup::new(contact_fields()).await;
    let mut created = Vec::new();
    for n in 0..30 {
        let mut answers = contact_answers(&s.fields, n);
        answers[&s.fields[2]] = json!(n);
        answers[&s.fields[3]] = json!(format!("line one\nline \"two\" of {n}"));
        created.push(s.create(answers).await);
    }
    s.regular_times().await;
    // Two responses at the same instant: the id breaks the tie, as in the listing.
    sqlx::query("UPDATE responses SET submitted_at = '2026-01-01T00:00:05Z' WHERE id = $1")
        .bind(uuid::Uuid::parse_str(&created[5]).expect("uuid"))
        .execute(&s.app.pool)
        .await
        .expect("a tie");

    let reply = s.export(&[("format", "ndjson")]).await;
    let rows = ndjson(&reply.text);
    let listing = s.listing(&[]).await;
    assert_eq!(rows.len(), 30);
    assert_eq!(rows, listing, "the export is the listing, oldest first");
    let unique: HashSet<String> = ids(&rows).into_iter().collect();
    assert_eq!(unique, created.iter().cloned().collect::<HashSet<_>>());
    assert_eq!(
        rows[3][&"answers"][&s.fields[2]],
        json!(3),
        "numbers stay integers"
    );
    // No format means NDJSON.
    assert_eq!(s.export(&[]).await.text, reply.text);

    // since/until are exclusive bounds on submitted_at.
    let window = [
        ("since", "2026-01-01T00:00:10Z"),
        ("until", "2026-01-01T00:00:20+00:00"),
    ];
    let mut query = vec![("format", "ndjson")];
    query.extend_from_slice(&window);
    let rows = ndjson(&s.export(&query).await.text);
    assert_eq!(ids(&rows), created[10..19], "responses 11 to 19");
    assert_eq!(rows, s.listing(&window).await);
    let rows = ndjson(&s.export(&[("since", "2026-01-01T00:00:29Z")]).await.text);
    assert_eq!(ids(&rows), created[29..]);
    let rows = ndjson(&s.export(&[("until", "2026-01-01T00:00:01Z")]).await.text);
    assert!(rows.is_empty(), "an empty window is an empty file");
}

/// A visitor's submission through the hosted-form service, with a PNG in `file_field`.
pub async fn hosted_submission(app: &TestApp, form_id: &str, answers: Value, file_field: &str) {
    let (short_id,): (String,) = sqlx::query_as("SELECT short_id FROM forms WHERE id = $1")
        .bind(uuid::Uuid::parse_str(form_id).expect("uuid"))
        .fetch_one(&app.pool)
        .await
        .expect("short id");
    let mut hosted = HostedFormsServiceClient::connect(app.grpc_url.clone())
        .await
        .expect("gRPC");
    let nonce = "0123456789abcdef0123456789abcdef";
    let page = hosted
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: short_id.clone(),
            csrf_nonce: nonce.to_owned(),
            ..Default::default()
        })
        .await
        .expect("GetHostedForm")
        .into_inner();
    let answers = answers.as_object().expect("answers object");
    let reply = hosted
        .submit_hosted_form(pb::SubmitHostedFormRequest {
            short_id,
            start_token: page.start_token,
            csrf_nonce: nonce.to_owned(),
            answers: Some(pb::convert::object_to_struct(answers)),
            user_agent: "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36".to_owned(),
            honeypot_filled: false,
            files: vec![pb::UploadedFile {
                field_id: file_field.to_owned(),
                file_name: "photo.png".to_owned(),
                content: crate::uploads::PNG.to_vec(),
            }],
            ..Default::default()
        })
        .await
        .expect("SubmitHostedForm")
        .into_inner();
    assert!(!reply.response_id.is_empty(), "stored");
}

#[tokio::test]
async fn csv_export_has_labels_quoting_and_no_formulas() {
    let s = Setup::new(json!([
        {"type": "short_text", "label": "Name", "required": true},
        {"type": "email", "label": "Email", "required": false},
        {"type": "short_text", "label": "Name", "required": false},
        {"type": "long_text", "label": "Notes", "required": false},
        {"type": "number", "label": "Age", "required": false},
        {"type": "file_upload", "label": "Photo", "required": false, "allowed_types": ["png"]},
    ]))
    .await;
    let f = &s.fields;
    let first = s
        .create(json!({
            f[0].clone(): "=HYPERLINK(\"https://evil.example\",\"click\")",
            f[1].clone(): "ada@example.com",
            f[2].clone(): "-3",
            f[3].clone(): "Ada, \"the\" first\r\nsecond line",
            f[4].clone(): -3,
            f[5].clone(): "https://files.example.com/cv.png",
        }))
        .await;
    let second = s
        .create(json!({f[0].clone(): "@SUM(A1:A2)", f[2].clone(): "+1", f[3].clone(): "\tTab"}))
        .await;
    hosted_submission(&s.app, &s.form_id, json!({f[0].clone(): "Visitor"}), &f[5]).await;

    let reply = s.export(&[("format", "csv")]).await;
    let text = &reply.text;
    assert!(text.ends_with("\r\n"), "CRLF line ends");
    assert!(
        text.contains("\"Ada, \"\"the\"\" first\r\nsecond line\""),
        "RFC 4180 quoting: {text}"
    );
    let records = csv_records(text);
    assert_eq!(records.len(), 4, "a header and three rows: {text}");
    assert_eq!(
        records[0],
        [
            "Response ID",
            "Submitted at",
            "Started at",
            "Completion time (seconds)",
            "Device type",
            "Browser",
            "OS",
            "Metadata",
            "Name",
            "Email",
            "Name (2)",
            "Notes",
            "Age",
            "Photo",
            "Language"
        ]
    );
    let listing = s.listing(&[]).await;
    let row = &records[1];
    assert_eq!(row[0], first);
    assert_eq!(row[1], listing[0]["submitted_at"].as_str().expect("time"));
    assert_eq!(row[2], listing[0]["started_at"].as_str().expect("time"));
    assert_eq!(&row[3..7], ["", "", "", ""], "API responses have no device");
    let metadata: Value = serde_json::from_str(&row[7]).expect("metadata as JSON");
    assert_eq!(metadata, json!({"source": "api"}));
    assert_eq!(row[8], "'=HYPERLINK(\"https://evil.example\",\"click\")");
    assert_eq!(row[9], "ada@example.com");
    assert_eq!(row[10], "'-3", "text that looks like a formula");
    assert_eq!(row[11], "Ada, \"the\" first\r\nsecond line");
    assert_eq!(row[12], "-3", "a number stays a number");
    assert_eq!(row[13], "https://files.example.com/cv.png");
    let row = &records[2];
    assert_eq!(row[0], second);
    assert_eq!((&row[8][..], &row[10][..]), ("'@SUM(A1:A2)", "'+1"));
    assert_eq!(row[11], "'\tTab");
    assert_eq!((&row[9][..], &row[12][..], &row[13][..]), ("", "", ""));
    let row = &records[3];
    assert_eq!(row[4], "desktop");
    assert!(row[5].contains("Chrome"), "{row:?}");
    assert!(row[3].parse::<i64>().is_ok(), "completion time {row:?}");
    assert_eq!(row[8], "Visitor");
    assert_eq!(row[13], "photo.png", "an uploaded file by its name");
}

#[tokio::test]
async fn an_export_streams_from_a_snapshot_while_responses_arrive() {
    let s = Setup::new(contact_fields()).await;
    let form_id = uuid::Uuid::parse_str(&s.form_id).expect("uuid");
    // Enough rows that the file is far larger than what sockets and channels hold, so
    // that the export is still reading rows while the writes below commit.
    let seeded: i64 = 40_000;
    sqlx::query(
        "WITH ins AS (
             INSERT INTO responses (id, form_id, answers, metadata, started_at, submitted_at)
             SELECT gen_random_uuid(), $1, jsonb_build_object($2::text, 'Seeded ' || g || repeat('.', 500)), '{\"source\":\"api\"}',
                    now() - make_interval(secs => ($3 - g) / 1000.0), now() - make_interval(secs => ($3 - g) / 1000.0)
               FROM generate_series(1, $3) AS g
             RETURNING submitted_at)
         UPDATE forms SET response_count = (SELECT count(*) FROM ins), last_submitted_at = (SELECT max(submitted_at) FROM ins)
          WHERE id = $1",
    )
    .bind(form_id)
    .bind(&s.fields[0])
    .bind(seeded)
    .execute(&s.app.pool)
    .await
    .expect("seeding");
    let (newest,): (uuid::Uuid,) = sqlx::query_as(
        "SELECT id FROM responses WHERE form_id = $1 ORDER BY submitted_at DESC, id DESC LIMIT 1",
    )
    .bind(form_id)
    .fetch_one(&s.app.pool)
    .await
    .expect("newest");

    let mut download = s
        .app
        .request(reqwest::Method::GET, &s.export_path(&[]))
        .header("x-api-key", &s.key)
        .send()
        .await
        .expect("export");
    assert_eq!(download.status(), 200);
    let mut body = download
        .chunk()
        .await
        .expect("first chunk")
        .expect("a first chunk")
        .to_vec();
    // While the export streams: new responses, and the newest seeded one deleted.
    let mut late = Vec::new();
    for n in 0..10 {
        late.push(s.create(contact_answers(&s.fields, n)).await);
    }
    let gone = s
        .app
        .delete(&format!("/forms/{}/responses/{newest}", s.form_id), &s.key)
        .await;
    assert_eq!(gone.status, 204, "{}", gone.text);
    // Else the test proves nothing: the export is still reading rows.
    let reading: (i64,) = sqlx::query_as(
        "SELECT count(*) FROM pg_stat_activity
          WHERE datname = current_database() AND state = 'active' AND query LIKE '%answers::text%'
            AND pid <> pg_backend_pid()",
    )
    .fetch_one(&s.app.pool)
    .await
    .expect("activity");
    assert_eq!(reading.0, 1, "the export's query is still running");
    while let Some(chunk) = download.chunk().await.expect("the rest") {
        body.extend_from_slice(&chunk);
    }
    let rows = ndjson(&String::from_utf8(body).expect("UTF-8"));
    let got = ids(&rows);
    assert_eq!(
        got.len(),
        seeded as usize,
        "every seeded response, no late one"
    );
    assert_eq!(
        got.iter().collect::<HashSet<_>>().len(),
        got.len(),
        "no duplicates"
    );
    assert!(late.iter().all(|id| !got.contains(id)), "no late response");
    assert_eq!(
        got.last(),
        Some(&newest.to_string()),
        "deleted after the snapshot: still in it"
    );
    let keys: Vec<(String, String)> = rows
        .iter()
        .map(|r| {
            (
                r["submitted_at"].as_str().expect("time").to_owned(),
                r["id"].as_str().expect("id").to_owned(),
            )
        })
        .collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "oldest first");

    // The next export sees the writes.
    let rows = ndjson(&s.export(&[]).await.text);
    let got = ids(&rows);
    assert_eq!(got.len(), seeded as usize - 1 + late.len());
    assert_eq!(got[got.len() - late.len()..], late[..]);
    assert!(!got.contains(&newest.to_string()));
}

#[tokio::test]
async fn export_refusals_use_the_spec_envelope_and_it_counts_once() {
    let s = Setup::new(contact_fields()).await;
    s.create(contact_answers(&s.fields, 1)).await;
    let stranger = s.app.key(PRO, ALL).await;
    let reply = s.app.get(&s.export_path(&[]), &stranger).await;
    reply.error(404, "NOT_FOUND");
    let unknown = format!("/forms/{}/responses/export", uuid::Uuid::new_v4());
    let baseline = s.app.get(&unknown, &stranger).await;
    baseline.error(404, "NOT_FOUND");
    assert_eq!(
        baseline.body["error"]["message"], reply.body["error"]["message"],
        "no existence oracle"
    );
    for query in [
        [("format", "xml")],
        [("format", "CSV ")],
        [("since", "yesterday")],
        [("until", "2026-13-01T00:00:00Z")],
    ] {
        let reply = s.app.get(&s.export_path(&query), &s.key).await;
        reply.error(422, "VALIDATION_ERROR");
    }
    let usage_only = s.app.key(PRO, &[]).await;
    let path = s.export_path(&[]);
    s.app
        .get(&path, &usage_only)
        .await
        .error(403, "INSUFFICIENT_SCOPE");
    s.app
        .get(&path, "fsk_0000000000000000_nope")
        .await
        .error(401, "KEY_INVALID");

    // One export is one request of the window, like any other.
    let before = s.app.get(&format!("/forms/{}", s.form_id), &s.key).await;
    let during = s.export(&[("format", "csv")]).await;
    let after = s.app.get(&format!("/forms/{}", s.form_id), &s.key).await;
    let remaining = |r: &Reply| r.header_u64("x-ratelimit-remaining");
    assert_eq!(remaining(&before) - 1, remaining(&during));
    assert_eq!(remaining(&during) - 1, remaining(&after));
}

pub async fn grpc_export(
    client: &mut ResponsesServiceClient<tonic::transport::Channel>,
    key: &str,
    message: pb::ExportResponsesRequest,
) -> Result<(Vec<u8>, usize), tonic::Status> {
    let reply = client.export_responses(grpc_request(message, key)).await?;
    for name in RATE_HEADERS {
        assert!(reply.metadata().get(name).is_some(), "{name} metadata");
    }
    let mut stream = reply.into_inner();
    let (mut bytes, mut messages) = (Vec::new(), 0);
    while let Some(message) = stream.next().await {
        bytes.extend_from_slice(&message?.data);
        messages += 1;
    }
    Ok((bytes, messages))
}

#[tokio::test]
async fn grpc_export_streams_the_same_file() {
    let s = Setup::new(contact_fields()).await;
    // Enough rows for several messages.
    for n in 0..40 {
        let mut answers = contact_answers(&s.fields, n);
        answers[&s.fields[3]] = json!("x".repeat(5_000));
        s.create(answers).await;
    }
    let mut client = ResponsesServiceClient::connect(s.app.grpc_url.clone())
        .await
        .expect("gRPC");
    let request = |format: pb::ExportFormat| pb::ExportResponsesRequest {
        form_id: s.form_id.clone(),
        format: format.into(),
        ..Default::default()
    };
    let (ndjson_bytes, messages) =
        grpc_export(&mut client, &s.key, request(pb::ExportFormat::Ndjson))
            .await
            .expect("NDJSON export");
    assert!(messages > 1, "streamed in several messages");
    let rest = s.export(&[]).await;
    assert_eq!(
        ndjson_bytes,
        rest.text.as_bytes(),
        "the REST body is the stream"
    );
    assert_eq!(ndjson(&rest.text).len(), 40);
    let (csv_bytes, _) = grpc_export(&mut client, &s.key, request(pb::ExportFormat::Csv))
        .await
        .expect("CSV export");
    assert_eq!(
        csv_bytes,
        s.export(&[("format", "csv")]).await.text.as_bytes()
    );
    let (unspecified, _) = grpc_export(&mut client, &s.key, request(pb::ExportFormat::Unspecified))
        .await
        .expect("default format");
    assert_eq!(unspecified, ndjson_bytes, "unspecified is NDJSON");

    let stranger = s.app.key(PRO, ALL).await;
    let refused = grpc_export(&mut client, &stranger, request(pb::ExportFormat::Csv)).await;
    assert_eq!(refused.err().map(|e| e.code()), Some(Code::NotFound));
    let mut bad = request(pb::ExportFormat::Csv);
    bad.format = 9;
    let refused = grpc_export(&mut client, &s.key, bad).await;
    assert_eq!(refused.err().map(|e| e.code()), Some(Code::InvalidArgument));
}

#[tokio::test]
async fn a_failure_while_streaming_breaks_the_download() {
    let s = Setup::new(contact_fields()).await;
    s.seed(50_000, 500).await;
    let mut download = s.start_export(&s.key).await;
    assert_eq!(download.status(), 200);
    let first = download.chunk().await.expect("first chunk");
    assert!(first.is_some());
    // The export's database session ends under it, as when PostgreSQL restarts.
    let ended: (i64,) = sqlx::query_as(
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid()
            AND query LIKE '%answers::text%'",
    )
    .fetch_one(&s.app.pool)
    .await
    .expect("terminating the export's session");
    assert_eq!(ended.0, 1, "the export's session was found");
    assert!(
        read_to_end(&mut download).await.is_err(),
        "the body ended cleanly, as if the file were complete"
    );
}

/// Reads a download to its end: Err when the transfer broke.
async fn read_to_end(download: &mut reqwest::Response) -> Result<(), reqwest::Error> {
    while download.chunk().await?.is_some() {}
    Ok(())
}

/// Each export holds a database connection until its reader takes the last byte. Thirty
/// exports of one account, opened together and never read, must not take the pool from
/// everyone else: beyond the caps (two per account, half the pool per instance) they are
/// refused at once, 429 RATE_LIMITED with Retry-After; another account is served
/// meanwhile; and an export whose reader stalls stops after the stall deadline, gives
/// its place back, and breaks its download (never a short file that looks whole).
#[tokio::test]
async fn exports_never_read_cannot_hold_the_database() {
    let s = Setup::with(contact_fields(), &["--export-stall-timeout", "3s"]).await;
    s.seed(50_000, 500).await;
    let started: Vec<_> = (0..30)
        .map(|_| tokio::spawn(s.start_export(&s.key)))
        .collect();
    let (mut held, mut refused) = (Vec::new(), Vec::new());
    for export in started {
        let reply = export.await.expect("export task");
        if reply.status() == 200 {
            held.push(reply);
        } else {
            refused.push(reply);
        }
    }
    assert!(
        (1..=2).contains(&held.len()),
        "{} exports held open",
        held.len()
    );
    for reply in refused {
        let (status, headers) = (reply.status().as_u16(), reply.headers().clone());
        let text = reply.text().await.expect("refusal body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        let refusal = Reply {
            status,
            headers,
            text,
            body,
        };
        let retry_after = refusal.error(429, "RATE_LIMITED")["retryAfter"].clone();
        assert!(refusal.header_u64("retry-after") >= 1);
        // SPEC Errors: rate-limit errors also carry retryAfter, in seconds.
        assert_eq!(retry_after, refusal.header_u64("retry-after"));
    }

    // Another account is served while the exports are held.
    let other = s.app.key(PRO, ALL).await;
    let quick = |method: reqwest::Method, path: &str| {
        s.app
            .request(method, path)
            .header("x-api-key", &other)
            .timeout(std::time::Duration::from_secs(10))
    };
    send(quick(reqwest::Method::GET, "/forms")).await.ok(200);
    send(quick(reqwest::Method::POST, "/forms").json(&json!({"title": "Other"})))
        .await
        .ok(201);

    // The stalled exports stop and give their places back: the account may export again.
    eventually(
        "the held exports stopped for their stalled readers",
        std::time::Duration::from_secs(60),
        || async {
            let stopped = s.app.logs().text().matches("export stopped").count();
            (stopped >= held.len()).then_some(())
        },
    )
    .await;
    eventually(
        "a new export once the stalled ones stopped",
        std::time::Duration::from_secs(60),
        || async {
            let reply = s.start_export(&s.key).await;
            (reply.status() == 200).then_some(())
        },
    )
    .await;
    for mut stalled in held {
        assert!(
            read_to_end(&mut stalled).await.is_err(),
            "a stopped export ended cleanly, as if the file were complete"
        );
    }
}
