//!fragment
// The diffusion decision of one particle, for RDME passes that declare `lat` (Lattice) and
// `hop` (hop probabilities by source type, destination type and species).

// Site type of a missing neighbour (past the lattice's edge): no hop that way.
const NO_SITE: u32 = 0xFFFFFFFFu;

fn hop_q(from_type: u32, to_type: u32, species: u32) -> f32 {
    return hop[(from_type * lat.n_types + to_type) * lat.n_species + species];
}

// Whether a particle of `species` in a site of type `t` whose draw is `u` arrives at the
// destination of type `t_dest`: `dir` +1 from the - neighbour (it hops + when u < q+), -1 from
// the + neighbour (it hops - when u >= 1 - q-), 0 staying (neither; `t_minus` / `t_plus` are
// its neighbours' types, NO_SITE past the edge).
fn arrives(dir: i32, u: f32, t: u32, t_dest: u32, t_minus: u32, t_plus: u32, species: u32) -> bool {
    if dir > 0 {
        return u < hop_q(t, t_dest, species);
    }
    if dir < 0 {
        return u >= 1.0 - hop_q(t, t_dest, species);
    }
    let q_plus = select(0.0, hop_q(t, t_plus, species), t_plus != NO_SITE);
    let q_minus = select(0.0, hop_q(t, t_minus, species), t_minus != NO_SITE);
    return !(u < q_plus) && !(u >= 1.0 - q_minus);
}
