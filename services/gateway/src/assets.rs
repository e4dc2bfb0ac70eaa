//! The screens, embedded in the binary so running needs no front-end
//! toolchain. Each page follows the raw feed (FEED.md) from the browser.

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;

use crate::app::AppState;

/// Path, content type, content.
pub const ASSETS: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "/hall",
        "text/html; charset=utf-8",
        include_str!("../assets/hall.html"),
    ),
    (
        "/overlay",
        "text/html; charset=utf-8",
        include_str!("../assets/overlay.html"),
    ),
    (
        "/spectator",
        "text/html; charset=utf-8",
        include_str!("../assets/spectator.html"),
    ),
    (
        "/standings",
        "text/html; charset=utf-8",
        include_str!("../assets/standings.html"),
    ),
    (
        "/standings-overlay",
        "text/html; charset=utf-8",
        include_str!("../assets/standings-overlay.html"),
    ),
    (
        "/assets/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "/assets/style.css",
        "text/css; charset=utf-8",
        include_str!("../assets/style.css"),
    ),
];

pub fn routes() -> Router<AppState> {
    embedded(ASSETS)
}

/// A GET route for each embedded (path, content type, content).
pub fn embedded(assets: &'static [(&'static str, &'static str, &'static str)]) -> Router<AppState> {
    assets.iter().fold(Router::new(), |r, &(path, ty, body)| {
        r.route(
            path,
            get(move |State(state): State<AppState>| async move {
                let csp = state.pages.content_security_policy();
                (
                    [
                        (header::CONTENT_TYPE, ty),
                        (header::CACHE_CONTROL, "no-cache"),
                    ],
                    [(header::CONTENT_SECURITY_POLICY, csp)],
                    body,
                )
                    .into_response()
            }),
        )
    })
}
