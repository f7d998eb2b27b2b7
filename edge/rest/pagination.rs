//! The pagination object of page-mode lists (SPEC: `pagination`).

use forms::pb;

/// Offset pagination (page mode).
#[derive(serde::Serialize, utoipa::ToSchema)]
#[schema(as = PagePagination)]
pub(crate) struct Page {
    /// Rows matching the query.
    total: i64,
    page: i32,
    per_page: i32,
    total_pages: i32,
}

impl From<pb::PagePagination> for Page {
    fn from(p: pb::PagePagination) -> Self {
        Self {
            total: p.total,
            page: p.page,
            per_page: p.per_page,
            total_pages: p.total_pages,
        }
    }
}
