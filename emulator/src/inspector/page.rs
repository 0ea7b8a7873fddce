//! The inspector's page at `/_emulator/`: one HTML document and its script and style,
//! embedded in the binary. The script reads the API once, then applies the live feed
//! (`/_emulator/api/events`); it needs nothing from the internet and no build step.

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::PAGE_PATH;
use super::api::refuse;

/// Where the page's script and style are.
pub(super) const ASSETS: &str = "/_emulator/inspector.";

const HTML: &str = include_str!("assets/inspector.html");
const SCRIPT: &str = include_str!("assets/inspector.js");
const STYLE: &str = include_str!("assets/inspector.css");

/// Answers the page and its assets.
pub(super) fn serve(request: &Request) -> Response {
    if request.method() != Method::GET && request.method() != Method::HEAD {
        let mut refused = refuse(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("{} is not served here; use GET", request.method()),
        );
        refused
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return refused;
    }
    let (body, content_type) = match request.uri().path() {
        "/_emulator" | PAGE_PATH => (HTML, "text/html; charset=utf-8"),
        "/_emulator/inspector.js" => (SCRIPT, "text/javascript; charset=utf-8"),
        "/_emulator/inspector.css" => (STYLE, "text/css; charset=utf-8"),
        other => {
            return refuse(
                StatusCode::NOT_FOUND,
                &format!("no inspector page {other}; the page is {PAGE_PATH}"),
            );
        }
    };
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        body,
    )
        .into_response()
}
