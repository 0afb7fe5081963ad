//! `gray-scott`: Petri's command line with this model beside the workspace's, e.g.
//!
//! ```text
//! gray-scott run assets/gray_scott.json --out runs/pearson --checkpoint-every 1000
//! gray-scott run assets/gray_scott.json --out runs/pearson --resume runs/pearson/checkpoint.petri
//! gray-scott bench gray-scott --sizes 64,128
//! ```
//!
//! Every `petri` command works as well (`gray-scott run assets/…/vilar.json`, `gray-scott
//! adapters`); the GPU is chosen as Petri chooses it (`--backend`, `--adapter`,
//! `PETRI_BACKEND`, `PETRI_ADAPTER`).

use gray_scott::model::GrayScott;
use petri_model::registry::Registry;

fn main() {
    let registry = Registry::default()
        .with(&GrayScott)
        .expect("no workspace model is named gray-scott");
    petri_cli::main_with(registry)
}
