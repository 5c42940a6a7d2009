//! The lowering phase, between check and emit: what a checked schema means for a back end,
//! stated once so every emitter reads the same model. Today: the writer's plan
//! (`plan.rs`, the one plan type; `writer.rs`, the lowering that makes it for every file and
//! its diagnostics), the writer's generated names (`names.rs`), the validator's parts
//! (`checks.rs`, where its generated functions are cut) and its checks' error sites,
//! numbered once for both back ends, with what each blames (`sites.rs`).

pub(crate) mod checks;
pub(crate) mod names;
pub(crate) mod plan;
pub(crate) mod sites;
pub(crate) mod top;
pub(crate) mod writer;
