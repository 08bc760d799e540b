-- The periodic cleanup of expired panel sessions and stale login failures finds them by these.
CREATE INDEX panel_sessions_expires_idx ON panel_sessions (expires_at);
CREATE INDEX login_failures_window_idx ON login_failures (window_started_at);
