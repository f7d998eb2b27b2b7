//! `formsd audit verify`: walks every chain of the audit trail through the
//! AuditAdminService and exits non-zero naming the first broken entry.

use super::{Admin, refused};
use crate::app::Error;
use clap::Subcommand;
use forms::pb;

#[derive(Subcommand)]
pub(crate) enum AuditCommand {
    /// Check that no entry of the trail was removed or altered: prints what was walked,
    /// or fails naming the first broken entry (its chain: the account's id, the nil
    /// UUID for the instance's; and its number).
    Verify,
}

pub(crate) async fn run(admin: Admin, command: AuditCommand) -> Result<(), Error> {
    let AuditCommand::Verify = command;
    let mut client = admin.audit();
    let request = admin.request(pb::VerifyAuditTrailRequest {})?;
    let reply = client
        .verify_audit_trail(request)
        .await
        .map_err(refused)?
        .into_inner();
    if reply.ok {
        println!(
            "audit trail intact: {} chains, {} entries",
            reply.chains, reply.entries
        );
        Ok(())
    } else {
        Err(format!(
            "audit trail broken at entry {} of chain {}: {}",
            reply.broken_seq, reply.broken_chain, reply.reason
        )
        .into())
    }
}
