//! SBML documents and exact stationary laws shared by the general-network tests (CPU and GPU).
#![allow(dead_code)]

/// An SBML Level 3 document: one compartment `cell` of size 1, `species` as
/// (id, initial amount), then `body` (parameters, functions, reactions, rules, events).
pub fn document(species: &[(&str, u64)], body: &str) -> String {
    let species: String = species
        .iter()
        .map(|(id, x)| {
            format!(
                r#"<species id="{id}" compartment="cell" initialAmount="{x}"
                   hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>"#
            )
        })
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="m">
    <listOfCompartments><compartment id="cell" size="1" spatialDimensions="3" constant="true"/></listOfCompartments>
    <listOfSpecies>{species}</listOfSpecies>
    {body}
  </model>
</sbml>"#
    )
}

pub fn math(inner: &str) -> String {
    format!(r#"<math xmlns="http://www.w3.org/1998/Math/MathML">{inner}</math>"#)
}

pub fn reaction(id: &str, reactants: &str, products: &str, law: &str) -> String {
    let list = |tag: &str, s: &str| match s {
        "" => String::new(),
        s => format!(
            r#"<{tag}><speciesReference species="{s}" stoichiometry="1" constant="true"/></{tag}>"#
        ),
    };
    format!(
        r#"<reaction id="{id}" reversible="false">{}{}<kineticLaw>{}</kineticLaw></reaction>"#,
        list("listOfReactants", reactants),
        list("listOfProducts", products),
        math(law)
    )
}

/// Mean and variance of the stationary distribution of a birth-death chain with birth
/// propensity `birth(x)` and death propensity `death(x)`: pi(x + 1) / pi(x) =
/// birth(x) / death(x + 1), summed until the terms vanish.
pub fn stationary(birth: impl Fn(f64) -> f64, death: impl Fn(f64) -> f64) -> (f64, f64) {
    let (mut weight, mut total, mut m1, mut m2) = (1.0f64, 0.0, 0.0, 0.0);
    for x in 0..100_000 {
        let xf = x as f64;
        total += weight;
        m1 += weight * xf;
        m2 += weight * xf * xf;
        weight *= birth(xf) / death(xf + 1.0);
        if weight < 1e-300 || (x > 10 && weight < 1e-16 * total) {
            break;
        }
    }
    let mean = m1 / total;
    (mean, m2 / total - mean * mean)
}
