//! Tower layers of the user's own around a host's router: what `layer(…)` on a host's
//! builder takes, kept until the router exists and applied in order, as
//! [`Router::layer`] would.

use std::convert::Infallible;

use axum::Router;
use axum::extract::Request;
use axum::response::IntoResponse;
use axum::routing::Route;
use tower::{Layer, Service};

/// A layer an axum [`Router`] can take: the bounds of [`Router::layer`], named once.
pub trait RouterLayer:
    Layer<
        Route,
        Service: Service<
            Request,
            Response: IntoResponse + 'static,
            Error: Into<Infallible> + 'static,
            Future: Send + 'static,
        > + Clone
                     + Send
                     + Sync
                     + 'static,
    > + Clone
    + Send
    + Sync
    + 'static
{
}

impl<L> RouterLayer for L
where
    L: Layer<Route> + Clone + Send + Sync + 'static,
    L::Service: Service<Request> + Clone + Send + Sync + 'static,
    <L::Service as Service<Request>>::Response: IntoResponse + 'static,
    <L::Service as Service<Request>>::Error: Into<Infallible> + 'static,
    <L::Service as Service<Request>>::Future: Send + 'static,
{
}

/// Layers waiting for a router, applied in the order they were added (the last outermost).
#[derive(Default)]
pub struct Layers(Vec<Box<dyn Fn(Router) -> Router + Send + Sync>>);

impl std::fmt::Debug for Layers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Layers({})", self.0.len())
    }
}

impl Layers {
    /// Adds `layer`, outside those added before.
    pub fn push(&mut self, layer: impl RouterLayer) {
        self.0
            .push(Box::new(move |router| router.layer(layer.clone())));
    }

    /// `router` inside every layer.
    pub fn apply(self, router: Router) -> Router {
        self.wrap(router)
    }

    /// `router` inside every layer, the layers kept for another router (a host that serves
    /// two: the container's HTTP router and its gRPC one).
    pub fn wrap(&self, router: Router) -> Router {
        self.0.iter().fold(router, |router, layer| layer(router))
    }
}
