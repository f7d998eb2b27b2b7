//! The audit trail's rows of the matrix: a stranger's trail (REST, its NDJSON export,
//! gRPC, the dashboard page) holds nothing of A's, even filtered by A's form; A's own
//! holds A's form (the positive control); verifying the trail is the operator's alone.

use super::*;
use ::forms::pb::audit_admin_service_client::AuditAdminServiceClient;
use ::forms::pb::audit_service_client::AuditServiceClient;
use tokio_stream::StreamExt;

/// What of A's must never show in another account's trail.
fn a_ids(a: &Tenant) -> Vec<String> {
    vec![
        a.form_id.clone(),
        a.draft_form_id.clone(),
        a.response_id.clone(),
        a.webhook_id.clone(),
        a.key.key_id.to_string(),
    ]
}

fn shows_any(text: &str, ids: &[String]) -> bool {
    ids.iter().any(|id| text.contains(id.as_str()))
}

pub(super) async fn audit_rows(
    m: &mut Matrix,
    app: &TestApp,
    channel: &Channel,
    token: &str,
    (a, b): (&Tenant, &Tenant),
    strangers: &[(&str, Cred, &Tenant)],
) {
    let ids = a_ids(a);
    let filtered = format!("form_id={}", a.form_id);
    for (row, base) in [
        ("GET /api/v1/audit", "/audit"),
        ("GET /api/v1/audit/export", "/audit/export"),
    ] {
        for (who, cred, _) in strangers {
            for path in [base.to_owned(), format!("{base}?{filtered}")] {
                let reply = rest(app, cred, Method::GET, &path, None).await;
                m.rest_status(row, who, &path, &reply, 200);
                m.expect(row, !shows_any(&reply.text, &ids), || {
                    format!(
                        "ISOLATION BUG: {who}'s trail at {path} shows A's: {}",
                        reply.text
                    )
                });
            }
        }
        let path = format!("{base}?{filtered}");
        let reply = app.get(&path, &a.key.key).await;
        m.rest_status(row, "A", &path, &reply, 200);
        m.expect(row, reply.text.contains(&a.form_id), || {
            format!("positive control: A's trail lacks A's form: {}", reply.text)
        });
    }

    let audit = AuditServiceClient::new(channel.clone());
    let row = "forms.v1.AuditService/ListAuditEntries";
    let listing = |form_id: &str| pb::ListAuditEntriesRequest {
        form_id: form_id.to_owned(),
        limit: Some(500),
        ..Default::default()
    };
    for (who, cred, _) in strangers {
        for form_id in ["", a.form_id.as_str()] {
            let result = audit
                .clone()
                .list_audit_entries(cred.grpc(listing(form_id)))
                .await;
            if let Some(reply) = m.grpc_ok(row, who, result) {
                let text = format!("{reply:?}");
                m.expect(row, !shows_any(&text, &ids), || {
                    format!("ISOLATION BUG: {who}'s ListAuditEntries shows A's: {text}")
                });
            }
        }
    }
    let result = audit
        .clone()
        .list_audit_entries(a.key_cred().grpc(listing(&a.form_id)))
        .await;
    if let Some(reply) = m.grpc_ok(row, "A", result) {
        m.expect(row, !reply.entries.is_empty(), || {
            "positive control: A's ListAuditEntries of A's form is empty".to_owned()
        });
    }

    let row = "forms.v1.AuditService/ExportAuditEntries";
    let export = |form_id: &str| pb::ExportAuditEntriesRequest {
        form_id: form_id.to_owned(),
        ..Default::default()
    };
    let read_all = |result: Result<
        tonic::Response<tonic::Streaming<pb::ExportAuditEntriesResponse>>,
        Status,
    >| async move {
        let mut text = String::new();
        let mut stream = result?.into_inner();
        while let Some(chunk) = stream.next().await {
            text.push_str(&String::from_utf8_lossy(&chunk?.data));
        }
        Ok::<_, Status>(tonic::Response::new(text))
    };
    for (who, cred, _) in strangers {
        for form_id in ["", a.form_id.as_str()] {
            let result = audit
                .clone()
                .export_audit_entries(cred.grpc(export(form_id)))
                .await;
            if let Some(text) = m.grpc_ok(row, who, read_all(result).await) {
                m.expect(row, !shows_any(&text, &ids), || {
                    format!("ISOLATION BUG: {who}'s ExportAuditEntries shows A's: {text}")
                });
            }
        }
    }
    let result = audit
        .clone()
        .export_audit_entries(a.key_cred().grpc(export(&a.form_id)))
        .await;
    if let Some(text) = m.grpc_ok(row, "A", read_all(result).await) {
        m.expect(row, text.contains(&a.form_id), || {
            format!("positive control: A's export lacks A's form: {text}")
        });
    }

    admin_row(
        m,
        "forms.v1.AuditAdminService/VerifyAuditTrail",
        token,
        strangers,
        |md| {
            let mut c = AuditAdminServiceClient::new(channel.clone());
            async move {
                c.verify_audit_trail(with_md(pb::VerifyAuditTrailRequest {}, md))
                    .await
            }
        },
    )
    .await;

    let row = "GET /app/audit";
    let (da, db) = (
        signed_in(app, &a.key.account).await,
        signed_in(app, &b.key.account).await,
    );
    for path in [
        "/app/audit".to_owned(),
        format!("/app/audit?form={}", a.form_id),
    ] {
        let page = db.get(&path).await;
        m.rest_status(row, "B's dashboard session", &path, &page, 200);
        // The filter's own field shows what B typed: not a leak.
        let shown = page.text.replace(&format!("value=\"{}\"", a.form_id), "");
        m.expect(row, !shows_any(&shown, &ids), || {
            format!(
                "ISOLATION BUG: B's audit page {path} shows A's: {}",
                page.text
            )
        });
    }
    let path = format!("/app/audit?form={}", a.form_id);
    let page = da.get(&path).await;
    m.rest_status(row, "A's dashboard session", &path, &page, 200);
    m.expect(row, page.text.contains(&a.form_id), || {
        format!(
            "positive control: A's audit page lacks A's form: {}",
            page.text
        )
    });
}
