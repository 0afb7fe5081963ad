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

/// The same in the units of most published models: substance and extent in moles, one
/// compartment `cell` of `litres`, `species` as (id, initial concentration in mol/L) with
/// concentrations in the laws (hasOnlySubstanceUnits="false").
pub fn molar_document(litres: f64, species: &[(&str, f64)], body: &str) -> String {
    let species: String = species
        .iter()
        .map(|(id, c)| {
            format!(
                r#"<species id="{id}" compartment="cell" initialConcentration="{c:e}"
                   hasOnlySubstanceUnits="false" boundaryCondition="false" constant="false"/>"#
            )
        })
        .collect();
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version2/core" level="3" version="2">
  <model id="m" substanceUnits="mole" extentUnits="mole" volumeUnits="litre">
    <listOfCompartments><compartment id="cell" size="{litres:e}" spatialDimensions="3" constant="true"/></listOfCompartments>
    <listOfSpecies>{species}</listOfSpecies>
    {body}
  </model>
</sbml>"#
    )
}

/// Avogadro's number, SI 2019.
pub const AVOGADRO: f64 = 6.022_140_76e23;

/// Hill repression V K^h / (K^h + X^h) and degradation mu X, in molecules: (V, K, h, mu).
pub const HILL: (f64, f64, f64, f64) = (40.0, 20.0, 3.0, 1.0);

/// The Hill network in mol/L and mol/s in a 1 fL `cell`, its production law `law` over V, K
/// and h in molar units (`HILL` converted), degradation mu X cell.
pub fn molar_hill(law: &str) -> String {
    let (v, k, h, mu) = HILL;
    let molar = AVOGADRO * 1e-15;
    let body = format!(
        r#"<listOfParameters>
          <parameter id="V" value="{:e}" constant="true"/><parameter id="K" value="{:e}" constant="true"/>
          <parameter id="h" value="{h}" constant="true"/><parameter id="mu" value="{mu}" constant="true"/>
        </listOfParameters>
        <listOfReactions>{}{}</listOfReactions>"#,
        v / molar,
        k / molar,
        reaction("make", "", "X", law),
        reaction(
            "decay",
            "X",
            "",
            "<apply><times/><ci>mu</ci><ci>X</ci><ci>cell</ci></apply>"
        ),
    );
    molar_document(1e-15, &[("X", 0.0)], &body)
}

/// V cell K^h / (K^h + X^h): in molar units its numerator is near 1e-45.
pub const HILL_POWERS: &str = "<apply><divide/><apply><times/><ci>V</ci><ci>cell</ci><apply><power/><ci>K</ci><ci>h</ci></apply></apply>
    <apply><plus/><apply><power/><ci>K</ci><ci>h</ci></apply><apply><power/><ci>X</ci><ci>h</ci></apply></apply></apply>";

/// V cell / (1 + (X/K)^h): the same law with values near 1e-22 and above.
pub const HILL_RATIO: &str = "<apply><divide/><apply><times/><ci>V</ci><ci>cell</ci></apply>
    <apply><plus/><cn>1</cn><apply><power/><apply><divide/><ci>X</ci><ci>K</ci></apply><ci>h</ci></apply></apply></apply>";

/// The exact stationary mean and variance of the Hill network.
pub fn hill_stationary() -> (f64, f64) {
    let (v, k, h, mu) = HILL;
    stationary(|x| v * k.powf(h) / (k.powf(h) + x.powf(h)), |x| mu * x)
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

/// An event `id` (with attributes `attrs`, a persistent trigger that is false before the start,
/// `extra` elements such as a delay) assigning the (variable, MathML) pairs.
pub fn event(
    id: &str,
    attrs: &str,
    trigger: &str,
    extra: &str,
    assignments: &[(&str, &str)],
) -> String {
    let assignments: String = assignments
        .iter()
        .map(|(v, m)| {
            format!(
                r#"<eventAssignment variable="{v}">{}</eventAssignment>"#,
                math(m)
            )
        })
        .collect();
    format!(
        r#"<event id="{id}" {attrs}><trigger initialValue="false" persistent="true">{}</trigger>{extra}
           <listOfEventAssignments>{assignments}</listOfEventAssignments></event>"#,
        math(trigger)
    )
}

/// MathML's time symbol.
pub const TIME: &str =
    r#"<csymbol encoding="text" definitionURL="http://www.sbml.org/sbml/symbols/time">t</csymbol>"#;
