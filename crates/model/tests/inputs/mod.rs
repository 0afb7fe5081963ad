//! Inputs shared by the readers' regression and fuzz tests (`robust_inputs.rs`,
//! `fuzz_readers.rs`).
#![allow(dead_code)]

/// An SBML model with species X (100) and Y (10) and one reaction `X -> 0` whose kinetic law
/// is `math` (MathML content).
pub fn sbml_with_law(math: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<sbml xmlns="http://www.sbml.org/sbml/level3/version1/core" level="3" version="1">
  <model id="m">
    <listOfCompartments><compartment id="C" constant="true"/></listOfCompartments>
    <listOfSpecies>
      <species id="X" compartment="C" initialAmount="100" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
      <species id="Y" compartment="C" initialAmount="10" hasOnlySubstanceUnits="true" boundaryCondition="false" constant="false"/>
    </listOfSpecies>
    <listOfParameters><parameter id="k" value="0.5" constant="true"/></listOfParameters>
    <listOfReactions>
      <reaction id="R" reversible="false">
        <listOfReactants><speciesReference species="X" stoichiometry="1" constant="true"/></listOfReactants>
        <kineticLaw><math xmlns="http://www.w3.org/1998/Math/MathML">{math}</math></kineticLaw>
      </reaction>
    </listOfReactions>
  </model>
</sbml>"#
    )
}
