//! Mailed sign-in links and invitations, sent by one task of their own in the order
//! they were asked for. Anyone may ask for a link without a credential, so the work it starts is bounded:
//! a queue of `QUEUE` addresses (a request that finds it full is dropped, and its asker
//! sees the same page as always), one mail at a time. The order also lets a test prove
//! that a request mailed nothing: once a later request's mail has arrived, the earlier
//! one has been dealt with.

use super::throttle::SignInThrottle;
use super::{LINK_LIFETIME, digest, new_token, store};
use crate::error::CoreError;
use crate::notifications::smtp::Mailer;
use sqlx::PgPool;
use std::sync::Arc;
use tokio::sync::mpsc;

/// Addresses waiting for their link.
const QUEUE: usize = 256;

/// A mail to send.
enum Job {
    /// A sign-in link to the person or account of an address.
    SignIn(String),
    /// An invitation's link, made by a member (so not throttled as a sign-in is: the
    /// gate's rate limit of the inviting account bounds it).
    Invitation(Invitation),
}

/// An invitation to mail: its address, the account's name, the role and the link's
/// token.
pub(crate) struct Invitation {
    pub email: String,
    pub account_name: String,
    pub role: &'static str,
    pub token: String,
}

/// The way to the task that mails links.
#[derive(Clone)]
pub(crate) struct LinkMail {
    queue: mpsc::Sender<Job>,
}

impl LinkMail {
    /// Starts the task that mails links built on `base` (the core's public URL) through
    /// `mailer`; it ends when the last `LinkMail` is dropped.
    pub(crate) fn start(
        pool: PgPool,
        throttle: Arc<SignInThrottle>,
        mailer: Mailer,
        base: &str,
    ) -> Self {
        let (queue, mut asked) = mpsc::channel::<Job>(QUEUE);
        let base = base.trim_end_matches('/').to_owned();
        tokio::spawn(async move {
            while let Some(job) = asked.recv().await {
                let sent = match job {
                    Job::SignIn(email) => send_link(&pool, &throttle, &mailer, &email, &base).await,
                    Job::Invitation(invitation) => {
                        send_invitation(&mailer, &invitation, &base).await
                    }
                };
                if let Err(e) = sent {
                    tracing::warn!(error = %e, "mailed link not sent");
                }
            }
        });
        Self { queue }
    }

    /// Asks for a link to the account of `email` (if any has it).
    pub(crate) fn ask(&self, email: &str) {
        if self.queue.try_send(Job::SignIn(email.to_owned())).is_err() {
            tracing::warn!("sign-in link not mailed: too many asked for at once");
        }
    }

    /// Queues an invitation's mail; whether it was queued.
    pub(crate) fn invite(&self, invitation: Invitation) -> bool {
        let queued = self.queue.try_send(Job::Invitation(invitation)).is_ok();
        if !queued {
            tracing::warn!("invitation not mailed: too many mails asked for at once");
        }
        queued
    }
}

/// Makes and mails a sign-in link to the account of `email`; nothing when no account
/// has that address, or the account has asked for too many.
async fn send_link(
    pool: &PgPool,
    throttle: &SignInThrottle,
    mailer: &Mailer,
    email: &str,
    base: &str,
) -> Result<(), CoreError> {
    if email.is_empty() || email.len() > 320 {
        return Ok(());
    }
    let Some((account, person)) = store::link_target_of_email(pool, email).await? else {
        return Ok(());
    };
    throttle.mail_to_account(account)?;
    let token = new_token();
    store::create_link(pool, (account, person), &digest(&token), LINK_LIFETIME).await?;
    let url = format!("{base}/app/sign-in/link?token={token}");
    let text = format!(
        "Someone (we hope you) asked to sign in to the forms dashboard.\n\n\
         Open this link within 15 minutes to sign in; it works once:\n\n{url}\n\n\
         If you did not ask for it, ignore this mail: nothing happens without the link.\n"
    );
    let shown = crate::notifications::mail::escape(&url);
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Sign in</title></head><body>\n\
         <p>Someone (we hope you) asked to sign in to the forms dashboard.</p>\n\
         <p><a href=\"{shown}\">Sign in</a> within 15 minutes; the link works once.</p>\n\
         <p>{shown}</p>\n\
         <p>If you did not ask for it, ignore this mail: nothing happens without the link.</p>\n\
         </body></html>\n"
    );
    mailer
        .send(email, "Your sign-in link", text, html)
        .await
        .map_err(|e| CoreError::Internal(e.to_string()))?;
    tracing::info!(account_id = %account, "sign-in link mailed");
    Ok(())
}

/// Mails an invitation's link.
async fn send_invitation(
    mailer: &Mailer,
    invitation: &Invitation,
    base: &str,
) -> Result<(), CoreError> {
    let url = format!("{base}/app/invitation?token={}", invitation.token);
    let (account, role) = (&invitation.account_name, invitation.role);
    let text = format!(
        "You are invited to join {account} on the forms dashboard, as {role}.\n\n\
         Open this link within 7 days to accept; it works once:\n\n{url}\n\n\
         If you did not expect it, ignore this mail: nothing happens without the link.\n"
    );
    let escape = crate::notifications::mail::escape;
    let (shown, account) = (escape(&url), escape(account));
    let html = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Invitation</title></head><body>\n\
         <p>You are invited to join {account} on the forms dashboard, as {role}.</p>\n\
         <p><a href=\"{shown}\">Accept the invitation</a> within 7 days; the link works once.</p>\n\
         <p>{shown}</p>\n\
         <p>If you did not expect it, ignore this mail: nothing happens without the link.</p>\n\
         </body></html>\n"
    );
    let subject = format!("Join {} on the forms dashboard", invitation.account_name);
    mailer
        .send(&invitation.email, &subject, text, html)
        .await
        .map_err(|e| CoreError::Internal(e.to_string()))?;
    tracing::info!("invitation mailed");
    Ok(())
}
