//! Keys can be labelled: an optional label on the create form (OwnerService
//! `CreateOwnKey.label`), shown in the list beside the key's prefix and in the usage
//! page's title; a label too long is refused in words and nothing is made. Against the
//! real binary.

use crate::dashboard_session::{channel, signed_in, spawn};
use forms::pb;
use forms::pb::owner_service_client::OwnerServiceClient;

#[tokio::test]
async fn a_key_made_with_a_label_is_listed_by_it() {
    let app = spawn(&[]).await;
    let dash = signed_in(&app, "label-owner").await;
    let made = dash
        .post(
            "/app/keys",
            &[("label", "  Nightly export "), ("scopes", "read")],
        )
        .await;
    assert_eq!(made.status, 200, "{}", made.text);
    assert!(
        made.text.contains("<dt>Label</dt><dd>Nightly export</dd>"),
        "{}",
        made.text
    );

    let keys = OwnerServiceClient::new(channel(&app).await)
        .list_own_keys(dash.grpc(pb::ListOwnKeysRequest {}, false))
        .await
        .expect("ListOwnKeys")
        .into_inner()
        .keys;
    let labelled: Vec<_> = keys.iter().filter(|k| k.label.is_some()).collect();
    assert_eq!(labelled.len(), 1, "{keys:?}");
    assert_eq!(labelled[0].label.as_deref(), Some("Nightly export"));
    let key = labelled[0].key.as_ref().expect("key");

    let list = dash.get("/app/keys").await;
    assert!(
        list.text.contains(&format!(
            r#"Nightly export <code class="muted">{}…</code>"#,
            key.prefix
        )),
        "{}",
        list.text
    );
    let usage = dash.get(&format!("/app/keys/{}", key.id)).await;
    assert!(
        usage
            .text
            .contains("<h1>Usage of key “Nightly export”</h1>"),
        "{}",
        usage.text
    );

    // Too long: refused in words, no key made.
    let long = "x".repeat(101);
    let refused = dash
        .post("/app/keys", &[("label", &long), ("scopes", "read")])
        .await;
    assert_eq!(refused.status, 422, "{}", refused.text);
    assert!(
        refused.text.contains("100 characters at most"),
        "{}",
        refused.text
    );
    // And the core refuses it on its own too.
    let e = OwnerServiceClient::new(channel(&app).await)
        .create_own_key(dash.grpc(
            pb::CreateOwnKeyRequest {
                label: Some(long),
                ..Default::default()
            },
            true,
        ))
        .await
        .expect_err("a label too long");
    assert_eq!(e.code(), tonic::Code::InvalidArgument);
    let after = OwnerServiceClient::new(channel(&app).await)
        .list_own_keys(dash.grpc(pb::ListOwnKeysRequest {}, false))
        .await
        .expect("ListOwnKeys")
        .into_inner()
        .keys;
    assert_eq!(after.len(), keys.len());
}
