// The payer page's live status: filled in by the payer pages.
