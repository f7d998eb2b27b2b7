//! The account archive's rows of the matrix: exporting and importing accounts is the
//! operator's alone (`x-admin-token`); every tenant's credential is refused
//! ADMIN_DENIED, even a key sent as the operator token, and the operator gets through.

use super::*;
use ::forms::pb::account_archive_service_client::AccountArchiveServiceClient;

pub(super) async fn archive_rows(
    m: &mut Matrix,
    channel: &Channel,
    token: &str,
    a: &Tenant,
    strangers: &[(&str, Cred, &Tenant)],
) {
    let account = a.key.account.clone();
    admin_row(
        m,
        "forms.v1.AccountArchiveService/ExportAccount",
        token,
        strangers,
        |md| {
            let mut c = AccountArchiveServiceClient::new(channel.clone());
            let request = pb::ExportAccountRequest {
                account: account.clone(),
            };
            async move { c.export_account(with_md(request, md)).await }
        },
    )
    .await;
    // An empty archive: refused as cut short once past the operator check.
    admin_row(
        m,
        "forms.v1.AccountArchiveService/ImportAccount",
        token,
        strangers,
        |md| {
            let mut c = AccountArchiveServiceClient::new(channel.clone());
            let chunks = tokio_stream::iter(Vec::<pb::ImportAccountRequest>::new());
            async move { c.import_account(with_md(chunks, md)).await }
        },
    )
    .await;
}
