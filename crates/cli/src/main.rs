//! `petri`: the command line over the workspace's models (`petri_cli::main_with`).

fn main() {
    petri_cli::main_with(petri_model::registry::Registry::default())
}
