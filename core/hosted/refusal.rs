//! What a refused admission or submission answers: a visitor who is to see the page
//! again gets it in the status's details, answers and kept files with it, so that the
//! edge makes one call, not two.

use super::{Hosted, kept};
use crate::error::CoreError;
use crate::pb;
use tonic::Status;

impl Hosted {
    /// The status of a refused admission or submission. When the visitor is to see the
    /// page again, answers kept, it carries what the page needs, so that the edge makes
    /// one call, not two.
    pub(super) async fn refusal(
        &self,
        refused: kept::Refused,
        page: pb::GetHostedFormRequest,
        id: &str,
    ) -> Status {
        let kept::Refused { error, kept } = refused;
        match error {
            refusal @ (CoreError::Validation(_)
            | CoreError::UnstorableText
            | CoreError::FieldErrors(_)
            | CoreError::ProofOfWork(_)
            | CoreError::CsrfFailed) => match self.get(page).await {
                Ok(page) => {
                    let page = pb::HostedFormPage {
                        form: page.form,
                        start_token: page.start_token,
                        pow_challenge: page.pow_challenge,
                        progress: page.progress,
                        kept_files: kept,
                    };
                    pb::details::with_detail(refusal.into_status(id), &page)
                }
                // The form closed or went away meanwhile: that is the answer now.
                Err(e) => e.into_status(id),
            },
            e => e.into_status(id),
        }
    }
}
