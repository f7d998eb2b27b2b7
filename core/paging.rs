//! Offset pagination shared by the list operations.

use crate::error::CoreError;
use crate::pb;

/// Default items per page.
pub(crate) const DEFAULT_PER_PAGE: i32 = 25;
/// Largest page; larger requests are clamped to it (and the reply says so).
pub(crate) const MAX_PER_PAGE: i32 = 100;

/// A validated page request.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Page {
    pub page: i32,
    pub per_page: i32,
}

impl Page {
    /// Validates `page` (at least 1, default 1) and `per_page` (at least 1, default 25,
    /// clamped to 100).
    pub(crate) fn new(page: Option<i32>, per_page: Option<i32>) -> Result<Self, CoreError> {
        let page = page.unwrap_or(1);
        if page < 1 {
            return Err(CoreError::validation(
                "page must be an integer of at least 1",
            ));
        }
        let per_page = per_page.unwrap_or(DEFAULT_PER_PAGE);
        if per_page < 1 {
            return Err(CoreError::validation(
                "per_page must be an integer from 1 to 100",
            ));
        }
        Ok(Self {
            page,
            per_page: per_page.min(MAX_PER_PAGE),
        })
    }

    pub(crate) fn limit(&self) -> i64 {
        i64::from(self.per_page)
    }

    pub(crate) fn offset(&self) -> i64 {
        (i64::from(self.page) - 1) * i64::from(self.per_page)
    }

    /// The pagination object of a reply, given the size of the whole result set.
    pub(crate) fn pagination(&self, total: i64) -> pb::PagePagination {
        let per_page = i64::from(self.per_page);
        let pages = (total + per_page - 1) / per_page;
        pb::PagePagination {
            total,
            page: self.page,
            per_page: self.per_page,
            total_pages: i32::try_from(pages).unwrap_or(i32::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_clamping_and_totals() {
        let p = Page::new(None, None).expect("defaults are valid");
        assert_eq!((p.page, p.per_page, p.offset()), (1, 25, 0));
        let p = Page::new(Some(3), Some(500)).expect("clamped");
        assert_eq!((p.per_page, p.offset()), (100, 200));
        assert_eq!(p.pagination(201).total_pages, 3);
        assert_eq!(p.pagination(0).total_pages, 0);
        assert!(Page::new(Some(0), None).is_err());
        assert!(Page::new(None, Some(0)).is_err());
    }
}
