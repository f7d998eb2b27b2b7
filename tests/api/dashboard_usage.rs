//! Browsing the dashboard is not API usage: the pages call the core under the account's
//! session key ("Dashboard sessions" among the keys), and those calls are not counted in
//! its usage, while a real key's requests are counted as the SPEC says. Against the real
//! binary; the figures are read back with the owner's gRPC method.

use crate::dashboard_session::{Dashboard, channel, signed_in, spawn};
use crate::fixtures::eventually;
use crate::harness::*;
use forms::pb;
use forms::pb::owner_service_client::OwnerServiceClient;
use std::time::Duration;

async fn total_requests(dash: &Dashboard, app: &TestApp, key_id: &str) -> i64 {
    OwnerServiceClient::new(channel(app).await)
        .get_own_key_usage(dash.grpc(
            pb::GetOwnKeyUsageRequest {
                key_id: key_id.to_owned(),
                days: Some(7),
            },
            false,
        ))
        .await
        .expect("own key usage")
        .into_inner()
        .usage
        .expect("usage")
        .total_requests
}

#[tokio::test]
async fn browsing_the_dashboard_is_not_counted_as_usage_of_the_session_key() {
    let app = spawn(&[]).await;
    let dash = signed_in(&app, "usage-browser").await;
    for path in ["/app/forms", "/app/keys", "/app/account", "/app/forms"] {
        assert_eq!(dash.get(path).await.status, 200, "{path}");
    }
    // One request with the account's API key, counted.
    app.get("/forms", &dash.key).await.ok(200);

    let keys = OwnerServiceClient::new(channel(&app).await)
        .list_own_keys(dash.grpc(pb::ListOwnKeysRequest {}, false))
        .await
        .expect("ListOwnKeys")
        .into_inner()
        .keys;
    let id_of = |session: bool| {
        keys.iter()
            .find(|k| k.session_key == session)
            .and_then(|k| k.key.as_ref())
            .map(|k| k.id.clone())
            .expect("the key is listed")
    };
    let (api, session) = (id_of(false), id_of(true));
    // The API key's request arrives with the tally's next flush; the session key's
    // calls (the pages above, and these reads) would have arrived with it.
    eventually(
        "the API key's request counted",
        Duration::from_secs(5),
        || async { (total_requests(&dash, &app, &api).await == 1).then_some(()) },
    )
    .await;
    assert_eq!(total_requests(&dash, &app, &session).await, 0);
}
