//! The isolation rows of data rights (a child of `isolation`, whose matrix it fills):
//! an erasure takes a value, not an id, and finds and erases the caller's own
//! responses only. Strangers look for a value of A's response (dry run, then for real)
//! and find nothing, and A's response is still there; A's own dry run finds it.

use super::{Cred, Matrix, Tenant, rest};
use crate::dashboard_session::signed_in;
use crate::harness::*;
use ::forms::pb::{self, responses_service_client::ResponsesServiceClient};
use serde_json::json;
use tonic::transport::Channel;

pub(super) async fn erasure_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    a: &Tenant,
    b: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
) {
    // A's response by API answers "a by API" (see `tenant`).
    let value = format!("{} by API", a.name);
    let rest_row = "POST /api/v1/erasures";
    let grpc_row = "forms.v1.ResponsesService/EraseRespondent";
    let responses = ResponsesServiceClient::new(channel.clone());
    for (who, cred, _) in strangers {
        for dry_run in [true, false] {
            let body = json!({"value": value, "dry_run": dry_run});
            let reply = rest(app, cred, Method::POST, "/erasures", Some(&body)).await;
            m.expect(
                rest_row,
                reply.status == 200
                    && reply.body["data"]["responses"] == json!([])
                    && !reply.text.contains(&a.response_id),
                || format!("ISOLATION BUG: {who}'s erasure reached A's: {}", reply.text),
            );
            let found = responses
                .clone()
                .erase_respondent(cred.grpc(pb::EraseRespondentRequest {
                    value: value.clone(),
                    dry_run,
                }))
                .await;
            m.expect(
                grpc_row,
                found.as_ref().is_ok_and(|r| r.get_ref().matches.is_empty()),
                || format!("ISOLATION BUG: {who}'s EraseRespondent reached A's: {found:?}"),
            );
        }
    }
    // A's response survived; A's own dry runs find it (the positive controls).
    let path = format!("/forms/{}/responses/{}", a.form_id, a.response_id);
    let still = app.get(&path, &a.key.key).await;
    m.expect(rest_row, still.status == 200, || {
        format!(
            "ISOLATION BUG: a stranger's erasure deleted A's response: {}",
            still.text
        )
    });
    let body = json!({"value": value, "dry_run": true});
    let own = rest(app, &a.key_cred(), Method::POST, "/erasures", Some(&body)).await;
    m.rest_status(rest_row, "A", "/erasures", &own, 200);
    m.expect(rest_row, own.text.contains(&a.response_id), || {
        format!("A's dry run misses A's response: {}", own.text)
    });
    let own = responses
        .clone()
        .erase_respondent(a.key_cred().grpc(pb::EraseRespondentRequest {
            value: value.clone(),
            dry_run: true,
        }))
        .await;
    if let Some(reply) = m.grpc_ok(grpc_row, "A's value", own) {
        m.expect(
            grpc_row,
            reply.matches.iter().any(|r| r.id == a.response_id),
            || format!("A's EraseRespondent misses A's response: {reply:?}"),
        );
    }

    // The dashboard's page: B's session finds nothing of A's, A's finds A's.
    let db = signed_in(app, &b.key.account).await;
    let da = signed_in(app, &a.key.account).await;
    let page = db.get("/app/account/erasure").await;
    m.rest_status(
        "GET /app/account/erasure",
        "B's session",
        "/app/account/erasure",
        &page,
        200,
    );
    m.expect(
        "GET /app/account/erasure",
        !page.text.contains(&a.form_id),
        || format!("B's erasure page names A's form: {}", page.text),
    );
    let post_row = "POST /app/account/erasure";
    for confirm in ["", "yes"] {
        let reply = db
            .post(
                "/app/account/erasure",
                &[("value", &value), ("confirm", confirm)],
            )
            .await;
        m.expect(
            post_row,
            !reply.text.contains(&a.response_id) && !reply.text.contains(&a.form_id),
            || {
                format!(
                    "ISOLATION BUG: B's session erased or saw A's: {}",
                    reply.text
                )
            },
        );
    }
    let still = app.get(&path, &a.key.key).await;
    m.expect(post_row, still.status == 200, || {
        format!(
            "ISOLATION BUG: B's session erased A's response: {}",
            still.text
        )
    });
    let own = da.post("/app/account/erasure", &[("value", &value)]).await;
    m.rest_status(post_row, "A's session", "/app/account/erasure", &own, 200);
    m.expect(post_row, own.text.contains(&a.response_id), || {
        format!("A's session's dry run misses A's response: {}", own.text)
    });
}
