//! What formsd keeps and for how long: a partial response's staged files stay while the
//! partial may still be resumed, and go with it once it is past `--partial-retention`;
//! ended or expired dashboard sessions and sign-in links go a day after they end. The
//! purges run at an instance's start and then every minute: a test makes rows old by
//! SQL (as the days would) and starts another instance on the database, whose first
//! round it waits for by the line it logs after its deletes.

use crate::dashboard_session::{sign_in_link, signed_in, token_of};
use crate::fixtures::*;
use crate::harness::*;
use crate::uploads::PNG;
use forms::pb::{self, hosted_forms_service_client::HostedFormsServiceClient};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Duration;

const NONCE: &str = "0123456789abcdef0123456789abcdef";

/// Two pages: a photo, then an email.
fn photo_then_email() -> Value {
    json!([
        {"type": "file_upload", "label": "Photo", "required": true, "allowed_types": ["png"],
         "max_size_mb": 0.5},
        {"type": "page_break", "label": "Last"},
        {"type": "email", "label": "Email", "required": true},
    ])
}

/// Saves page 1 of `form` with a photo, as the edge does: the resume token.
async fn save_photo_page(app: &TestApp, form: &Value) -> String {
    let channel = tonic::transport::Channel::from_shared(app.grpc_url.clone())
        .expect("gRPC URL")
        .connect()
        .await
        .expect("connecting to the core");
    let mut hosted = HostedFormsServiceClient::new(channel);
    let short_id = form["short_id"].as_str().expect("short id").to_owned();
    let page = hosted
        .get_hosted_form(pb::GetHostedFormRequest {
            short_id: short_id.clone(),
            csrf_nonce: NONCE.to_owned(),
            page: Some(1),
            ..Default::default()
        })
        .await
        .expect("GetHostedForm")
        .into_inner();
    let saved = hosted
        .submit_hosted_form(pb::SubmitHostedFormRequest {
            short_id,
            start_token: page.start_token,
            csrf_nonce: NONCE.to_owned(),
            answers: Some(pb::convert::object_to_struct(&serde_json::Map::new())),
            user_agent: "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0".to_owned(),
            files: vec![pb::UploadedFile {
                field_id: field_ids(form)[0].clone(),
                file_name: "me.png".to_owned(),
                content: PNG.to_vec(),
            }],
            page: 1,
            ..Default::default()
        })
        .await
        .expect("page 1 saved")
        .into_inner();
    let progress = saved.progress.expect("a partial");
    assert_eq!(progress.page, 2);
    progress.resume_token
}

/// The id of the staged file of the partial whose resume token is `resume`.
async fn file_of(app: &TestApp, resume: &str) -> uuid::Uuid {
    let digest = Sha256::digest(resume.as_bytes()).to_vec();
    let ids: Vec<uuid::Uuid> =
        sqlx::query_scalar("SELECT file_ids FROM partial_responses WHERE resume_digest = $1")
            .bind(digest)
            .fetch_one(&app.pool)
            .await
            .expect("the partial");
    assert_eq!(ids.len(), 1, "{ids:?}");
    ids[0]
}

async fn exists(app: &TestApp, sql: &'static str, id: uuid::Uuid) -> bool {
    sqlx::query_scalar(sql)
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .expect(sql)
}

const FILE_STAGED: &str =
    "SELECT EXISTS (SELECT 1 FROM response_files WHERE id = $1 AND response_id IS NULL)";
const FILE_EXISTS: &str = "SELECT EXISTS (SELECT 1 FROM response_files WHERE id = $1)";
const PARTIAL_EXISTS: &str =
    "SELECT EXISTS (SELECT 1 FROM partial_responses WHERE $1 = ANY (file_ids))";

/// Another instance on `db` logging at debug level, whose housekeeping runs at once.
async fn debug_instance(db: Arc<TestDb>) -> TestApp {
    let mut cmd = formsd_command();
    cmd.env("RUST_LOG", "debug");
    let server = Formsd::start_with(cmd, &serve_args(&db.url, &[])).await;
    TestApp::from_parts(server, db).await
}

/// The `field` of the first JSON line logged with `message`, once it is logged.
async fn logged_field(app: &TestApp, message: &str, field: &str) -> Value {
    assert!(app.logs().wait_for(message).await, "no {message:?} logged");
    app.logs()
        .json_lines()
        .into_iter()
        .find(|l| l["fields"]["message"] == message)
        .map(|l| l["fields"][field].clone())
        .unwrap_or_else(|| panic!("{message:?} without {field}"))
}

#[tokio::test]
async fn a_partials_staged_file_is_kept_while_it_lives_and_purged_after_it() {
    // Staged files of whole submissions wait 1 s (swept every second); a page's file
    // waits as long as its partial may.
    let app = TestApp::spawn_with(&["--staged-file-grace", "1s"]).await;
    let key = app.key(PRO, ALL).await;
    let form = published_form(&app, &key, photo_then_email(), Value::Null).await;
    let old = save_photo_page(&app, &form).await;
    let fresh = save_photo_page(&app, &form).await;
    let (old_file, fresh_file) = (file_of(&app, &old).await, file_of(&app, &fresh).await);

    // A file staged after them with the 1 s grace, as a refused submission leaves it:
    // the sweep takes staged files oldest deadline first, so once this one is gone every
    // sweep that would have taken the pages' files (had they had the grace) has run.
    let control: uuid::Uuid = sqlx::query_scalar(
        "INSERT INTO response_files (id, response_id, field_id, file_name, content_type, size,
                                     content, staged_until)
         VALUES (gen_random_uuid(), NULL, 'x', 'control.png', 'image/png', 1, '\\x00',
                 clock_timestamp() + interval '1 second')
         RETURNING id",
    )
    .fetch_one(&app.pool)
    .await
    .expect("a staged file");
    eventually(
        "the sweep of the control file",
        Duration::from_secs(30),
        || async { (!exists(&app, FILE_EXISTS, control).await).then_some(()) },
    )
    .await;
    assert!(
        exists(&app, FILE_STAGED, old_file).await,
        "kept while its partial lives"
    );
    assert!(exists(&app, FILE_STAGED, fresh_file).await);

    // 31 days on for the first partial (past the 30 days of --partial-retention): its
    // row and its file's deadline move back together, as time would move them.
    let digest = Sha256::digest(old.as_bytes()).to_vec();
    sqlx::query(
        "UPDATE partial_responses
            SET started_at = started_at - interval '31 days',
                saved_at = saved_at - interval '31 days',
                updated_at = updated_at - interval '31 days'
          WHERE resume_digest = $1",
    )
    .bind(digest)
    .execute(&app.pool)
    .await
    .expect("an old partial");
    sqlx::query(
        "UPDATE response_files SET staged_until = staged_until - interval '31 days' WHERE id = $1",
    )
    .bind(old_file)
    .execute(&app.pool)
    .await
    .expect("its file's deadline");

    // Another instance purges at its start: the old partial, then its file; the fresh
    // one and its file stay.
    let purging = debug_instance(app.db.clone()).await;
    let purged = logged_field(&purging, "partial responses past retention", "purged").await;
    assert_eq!(purged, 1);
    assert!(!exists(&app, PARTIAL_EXISTS, old_file).await);
    assert!(exists(&app, PARTIAL_EXISTS, fresh_file).await);
    eventually(
        "the old partial's file swept",
        Duration::from_secs(30),
        || async { (!exists(&app, FILE_EXISTS, old_file).await).then_some(()) },
    )
    .await;
    assert!(exists(&app, FILE_STAGED, fresh_file).await);
    // Nothing else was swept: the fresh partial's file is the only one left.
    let left = sqlx::query_scalar::<_, i64>("SELECT count(*) FROM response_files")
        .fetch_one(&app.pool)
        .await
        .expect("files");
    assert_eq!(left, 1);
}

/// The row of `table` whose `digest` is that of `token`, if any.
async fn has_digest(app: &TestApp, table: &str, token: &str) -> bool {
    let digest = Sha256::digest(token.as_bytes()).to_vec();
    let sql = format!("SELECT EXISTS (SELECT 1 FROM {table} WHERE digest = $1)");
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.clone()))
        .bind(digest)
        .fetch_one(&app.pool)
        .await
        .expect("a digest")
}

#[tokio::test]
async fn ended_sessions_and_spent_links_are_purged_a_day_after_they_end() {
    let mut app = TestApp::spawn().await;
    let account = "purged";
    let live = signed_in(&app, account).await;
    let ended_long_ago = signed_in(&app, account).await;
    let ended_today = signed_in(&app, account).await;
    let expired = signed_in(&app, account).await;
    for dashboard in [&ended_long_ago, &ended_today] {
        assert_eq!(dashboard.post("/app/sign-out", &[]).await.status, 200);
    }
    let fresh_link = token_of(&sign_in_link(&app, account).await).to_owned();
    let old_link = token_of(&sign_in_link(&app, account).await).to_owned();
    // This instance purges again only in a minute: stop it, so that the rounds counted
    // below are the next instance's.
    app.server.terminate().await;

    // Two days on for some: a session ended, a session past its lifetime, a link past
    // its 15 minutes.
    let back = |sql: &'static str, token: &str| {
        let digest = Sha256::digest(token.as_bytes()).to_vec();
        let pool = app.pool.clone();
        async move {
            let n = sqlx::query(sql)
                .bind(digest)
                .execute(&pool)
                .await
                .expect(sql)
                .rows_affected();
            assert_eq!(n, 1, "{sql}");
        }
    };
    back(
        "UPDATE dashboard_sessions SET ended_at = now() - interval '2 days' WHERE digest = $1",
        ended_long_ago.session(),
    )
    .await;
    back(
        "UPDATE dashboard_sessions SET expires_at = now() - interval '2 days' WHERE digest = $1",
        expired.session(),
    )
    .await;
    back(
        "UPDATE sign_in_links SET expires_at = now() - interval '2 days' WHERE digest = $1",
        &old_link,
    )
    .await;

    let purging = debug_instance(app.db.clone()).await;
    let purged = logged_field(
        &purging,
        "ended dashboard sessions, links and invitations",
        "purged",
    )
    .await;
    assert_eq!(purged, 3, "two sessions and a link");
    assert!(!has_digest(&app, "dashboard_sessions", ended_long_ago.session()).await);
    assert!(!has_digest(&app, "dashboard_sessions", expired.session()).await);
    assert!(!has_digest(&app, "sign_in_links", &old_link).await);
    // Kept: the live session, one ended within the day, an unused link in its time.
    assert!(has_digest(&app, "dashboard_sessions", live.session()).await);
    assert!(has_digest(&app, "dashboard_sessions", ended_today.session()).await);
    assert!(has_digest(&app, "sign_in_links", &fresh_link).await);
    // The live session still works on the new instance.
    let on_purging = crate::dashboard_session::Dashboard {
        base: crate::dashboard_session::origin(&purging),
        client: crate::dashboard_session::browser(),
        cookie: live.cookie.clone(),
        csrf: live.csrf.clone(),
        account: live.account.clone(),
        key: live.key.clone(),
    };
    assert_eq!(on_purging.get("/app/forms").await.status, 200);
}
