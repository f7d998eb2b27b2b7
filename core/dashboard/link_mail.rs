//! Mailed sign-in links, sent by one task of their own in the order they were asked
//! for. Anyone may ask for a link without a credential, so the work it starts is bounded:
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

/// The way to the task that mails links.
#[derive(Clone)]
pub(crate) struct LinkMail {
    queue: mpsc::Sender<String>,
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
        let (queue, mut asked) = mpsc::channel::<String>(QUEUE);
        let base = base.trim_end_matches('/').to_owned();
        tokio::spawn(async move {
            while let Some(email) = asked.recv().await {
                if let Err(e) = send_link(&pool, &throttle, &mailer, &email, &base).await {
                    tracing::warn!(error = %e, "mailed sign-in link not sent");
                }
            }
        });
        Self { queue }
    }

    /// Asks for a link to the account of `email` (if any has it).
    pub(crate) fn ask(&self, email: &str) {
        if self.queue.try_send(email.to_owned()).is_err() {
            tracing::warn!("sign-in link not mailed: too many asked for at once");
        }
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
    let Some(account) = store::account_by_email(pool, email).await? else {
        return Ok(());
    };
    throttle.mail_to_account(account)?;
    let token = new_token();
    store::create_link(pool, account, &digest(&token), LINK_LIFETIME).await?;
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
