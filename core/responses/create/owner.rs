//! Whose each form is, checked before a submission joins the form's queue. A create
//! for another account's form (or a page's token that names another form than its
//! address) is answered at once: it never takes the form's row lock nor moves its row,
//! which would send the owner's next creates down the locked path. A form's account
//! and address never change, so an owner read once holds for as long as it is kept.

use super::snapshot::gauge_view;
use super::submission::Source;
use crate::db::lanes::Lanes;
use crate::error::CoreError;
use crate::lru::ByteLru;
use crate::responses::store::{self, Owner};
use std::sync::{Arc, Mutex, PoisonError};
use uuid::Uuid;

/// The owners of the forms this instance has stored submissions to, by form id, within
/// a bound of memory: beyond it the least recently used is let go (an owner is only a
/// read saved).
#[derive(Clone)]
pub(super) struct Owners {
    forms: Arc<Mutex<ByteLru<Uuid, Arc<Owner>>>>,
    lanes: Lanes,
}

impl Owners {
    /// Owners kept in at most `max_bytes`.
    pub(super) fn new(lanes: Lanes, max_bytes: usize) -> Self {
        Self {
            forms: Arc::new(Mutex::new(ByteLru::new(max_bytes))),
            lanes,
        }
    }

    fn forms(&self) -> std::sync::MutexGuard<'_, ByteLru<Uuid, Arc<Owner>>> {
        self.forms.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `from` may submit to the form: `NotFound` for no such form or another
    /// account's, `CsrfFailed` for a page's token of another form.
    pub(super) async fn check(&self, form_id: Uuid, from: &Source) -> Result<(), CoreError> {
        let owner = match self.known(form_id) {
            Some(owner) => owner,
            None => self.read(form_id).await?,
        };
        from.may_submit_to(owner.account_id, &owner.short_id)
    }

    fn known(&self, form_id: Uuid) -> Option<Arc<Owner>> {
        self.forms().get(&form_id).cloned()
    }

    /// Reads the form's owner and keeps it (a form that does not exist is not kept: it
    /// costs each submission to it a read, as the locked path would).
    async fn read(&self, form_id: Uuid) -> Result<Arc<Owner>, CoreError> {
        let mut lane = self.lanes.take().await?;
        let owner = store::form_owner(&mut *lane, form_id).await?;
        // A result read in full: nothing is pending on the connection.
        lane.finish();
        let owner = Arc::new(owner.ok_or(CoreError::NotFound("form"))?);
        let mut forms = self.forms();
        // Its Arc's counts besides the owner, and the short id's text.
        let bytes = size_of::<Owner>() + 2 * size_of::<usize>() + owner.short_id.len();
        forms.insert(form_id, owner.clone(), bytes);
        gauge_view("owners", &forms);
        Ok(owner)
    }
}
