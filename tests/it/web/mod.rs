//! The HTTP door: the API, board pictures, the pages over HTTP and in a real browser, the scope of tokens,
//! the operator's metrics and health check.

mod api;
mod board;
mod browser;
mod events; // issue 34: live game events
mod legend; // issue 32, slice P: options on the page, legends under text boards
mod metrics; // issue 36: GET /metrics and GET /health
mod numbers; // issue 32, slice T
mod openapi; // issue 34: the API's OpenAPI document, checked by schemathesis
mod pages;
mod pictures; // issue 38: palette PNGs, the same to the eye and the same bytes
mod scope;
mod xfcc; // issue 34: Xfcc for chess GUIs
