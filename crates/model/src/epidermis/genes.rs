//! Placeholder for the gene network's parameters until wip/epigenes (H2) lands; that branch
//! replaces this file. Any JSON object is accepted here.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(transparent)]
pub struct GeneParams(pub serde_json::Value);
