//! General networks (SBML beyond mass action) read and simulated by the CPU direct method:
//! Hill and Michaelis-Menten laws against the exact stationary distributions of their
//! birth-death chains, function definitions and piecewise laws, assignment rules, and events
//! (time and state triggers, delays, priorities, persistence) on networks whose outcome is
//! known exactly.

mod sbml_common;

use petri_model::reactions::sbml::parse_sbml_general;
use petri_model::ssa::general::{run_general_cpu, GeneralTables, GeneralTrajectory};
use sbml_common::{
    document, event, hill_stationary, math, molar_document, molar_hill, reaction, stationary,
    AVOGADRO, HILL_POWERS, TIME,
};

/// The ensemble's mean and variance of species 0 at `t`, checked against (mu, var): the mean
/// within 4.5 standard errors, the variance within 4.5 of its standard errors (about
/// var sqrt(2 / n) for a near-normal count) plus 2 %.
fn check_stationary(sbml: &str, n: u64, t: f64, mu: f64, var: f64) {
    let net = parse_sbml_general(sbml, "test.xml").unwrap();
    let stats = run_general_cpu(&net, n, 0x5b_0001, &[0.0, t]).unwrap();
    let (mean, sd) = (stats.mean[1][0], stats.sd[1][0]);
    let se = (var / n as f64).sqrt();
    assert!(
        (mean - mu).abs() < 4.5 * se,
        "mean {mean}, exact {mu} (se {se})"
    );
    let var_se = var * (2.0 / n as f64).sqrt();
    let s2 = sd * sd;
    assert!(
        (s2 - var).abs() < 4.5 * var_se + 0.02 * var,
        "variance {s2}, exact {var}"
    );
}

#[test]
fn hill_repression_matches_its_exact_stationary_distribution() {
    // Production V K^h / (K^h + X^h) through a function definition, degradation mu X.
    let (v, k, h, mu): (f64, f64, f64, f64) = (40.0, 20.0, 3.0, 1.0);
    let body = format!(
        r#"<listOfFunctionDefinitions><functionDefinition id="hill">{}</functionDefinition></listOfFunctionDefinitions>
        <listOfParameters>
          <parameter id="V" value="{v}" constant="true"/><parameter id="K" value="{k}" constant="true"/>
          <parameter id="h" value="{h}" constant="true"/><parameter id="mu" value="{mu}" constant="true"/>
        </listOfParameters>
        <listOfReactions>{}{}</listOfReactions>"#,
        math(
            "<lambda><bvar><ci>x</ci></bvar><bvar><ci>k</ci></bvar><bvar><ci>n</ci></bvar>
             <apply><divide/><apply><power/><ci>k</ci><ci>n</ci></apply>
             <apply><plus/><apply><power/><ci>k</ci><ci>n</ci></apply><apply><power/><ci>x</ci><ci>n</ci></apply></apply></apply></lambda>"
        ),
        reaction(
            "make",
            "",
            "X",
            "<apply><times/><ci>V</ci><apply><ci>hill</ci><ci>X</ci><ci>K</ci><ci>h</ci></apply></apply>"
        ),
        reaction("decay", "X", "", "<apply><times/><ci>mu</ci><ci>X</ci></apply>"),
    );
    let sbml = document(&[("X", 0)], &body);
    let (m, var) = stationary(|x| v * k.powf(h) / (k.powf(h) + x.powf(h)), |x| mu * x);
    check_stationary(&sbml, 4000, 20.0, m, var);
}

#[test]
fn michaelis_menten_degradation_matches_its_exact_stationary_distribution() {
    // Immigration lambda, degradation Vmax X / (Km + X), a piecewise guard at X = 0.
    let (lambda, vmax, km) = (8.0, 10.0, 15.0);
    let body = format!(
        r#"<listOfParameters>
          <parameter id="lambda" value="{lambda}" constant="true"/>
          <parameter id="Vmax" value="{vmax}" constant="true"/><parameter id="Km" value="{km}" constant="true"/>
        </listOfParameters>
        <listOfReactions>{}{}</listOfReactions>"#,
        reaction("in", "", "X", "<ci>lambda</ci>"),
        reaction(
            "out",
            "X",
            "",
            "<piecewise><piece><cn>0</cn><apply><eq/><ci>X</ci><cn>0</cn></apply></piece>
             <otherwise><apply><divide/><apply><times/><ci>Vmax</ci><ci>X</ci></apply>
             <apply><plus/><ci>Km</ci><ci>X</ci></apply></apply></otherwise></piecewise>"
        ),
    );
    // Near saturation the chain relaxes slowly (rate Vmax Km / (Km + X)^2 ~ 1/37 at X = 60):
    // start near the mean and sample after several relaxation times.
    let sbml = document(&[("X", 60)], &body);
    let (m, var) = stationary(|_| lambda, |x| vmax * x / (km + x));
    check_stationary(&sbml, 4000, 250.0, m, var);
}

#[test]
fn a_hill_law_in_molar_units_matches_its_exact_stationary_distribution() {
    // The Hill network above in mol/L and mol/s in a 1 fL cell: V K^h cell / (K^h + X^h) has
    // a numerator near 1e-45 (f64 holds it), times Avogadro's number the same propensities.
    let (m, var) = hill_stationary();
    check_stationary(&molar_hill(HILL_POWERS), 4000, 20.0, m, var);
}

/// The state of one trajectory at `t`: species counts, then rule values.
fn one(sbml: &str, t: f64) -> (Vec<u64>, Vec<f64>) {
    let net = parse_sbml_general(sbml, "test.xml").unwrap();
    let tables = GeneralTables::new(net);
    let mut traj = GeneralTrajectory::new(&tables, 7).unwrap();
    traj.advance_to(t).unwrap();
    traj.outputs()
}

#[test]
fn events_fire_at_their_time_after_their_delay_in_priority_order() {
    // No reactions: only events change X and the parameter p.
    let body = format!(
        r#"<listOfParameters><parameter id="p" value="0" constant="false"/><parameter id="w" constant="false"/></listOfParameters>
        <listOfRules><assignmentRule variable="w">{}</assignmentRule></listOfRules>
        <listOfEvents>{}{}{}</listOfEvents>"#,
        math("<ci>p</ci>"),
        // At t = 2, X := 10, executed 1.5 later with the value of p at the trigger (0) + 10.
        event(
            "delayed",
            r#"useValuesFromTriggerTime="true""#,
            &format!("<apply><geq/>{TIME}<cn>2</cn></apply>"),
            &format!("<delay>{}</delay>", math("<cn>1.5</cn>")),
            &[("X", "<apply><plus/><ci>p</ci><cn>10</cn></apply>")]
        ),
        // At t > 3 (just after 3): p := 5 and, with lower priority, then p := p * 2.
        event(
            "first",
            r#"useValuesFromTriggerTime="false""#,
            &format!("<apply><gt/>{TIME}<cn>3</cn></apply>"),
            &format!("<priority>{}</priority>", math("<cn>2</cn>")),
            &[("p", "<cn>5</cn>")]
        ),
        event(
            "second",
            r#"useValuesFromTriggerTime="false""#,
            &format!("<apply><gt/>{TIME}<cn>3</cn></apply>"),
            &format!("<priority>{}</priority>", math("<cn>1</cn>")),
            &[("p", "<apply><times/><ci>p</ci><cn>2</cn></apply>")]
        ),
    );
    let sbml = document(&[("X", 0)], &body);
    let net = parse_sbml_general(&sbml, "test.xml").unwrap();
    let tables = GeneralTables::new(net);
    let mut traj = GeneralTrajectory::new(&tables, 1).unwrap();
    traj.advance_to(3.0).unwrap();
    assert_eq!(
        traj.outputs().0,
        vec![0],
        "the delayed event is not due before t = 3.5"
    );
    assert_eq!(
        traj.outputs().1,
        vec![0.0],
        "p (through w = p) before t > 3"
    );
    traj.advance_to(3.4).unwrap();
    // Priority 2 first (p := 5), then priority 1 (p := p * 2).
    assert_eq!(traj.outputs(), (vec![0], vec![10.0]));
    traj.advance_to(3.5).unwrap();
    // Values from the trigger time: p was 0 at t = 2, so X = 10, not 20.
    assert_eq!(traj.outputs().0, vec![10]);
}

#[test]
fn a_state_trigger_fires_on_each_rise_and_a_rule_follows_the_state() {
    // Immigration at rate 5; whenever X > 20, X := 0 (00033's reset); y = 2 X + 1 by a rule.
    let body = format!(
        r#"<listOfParameters><parameter id="y" constant="false"/></listOfParameters>
        <listOfReactions>{}</listOfReactions>
        <listOfRules><assignmentRule variable="y">{}</assignmentRule></listOfRules>
        <listOfEvents>{}</listOfEvents>"#,
        reaction("in", "", "X", "<cn>5</cn>"),
        math("<apply><plus/><apply><times/><cn>2</cn><ci>X</ci></apply><cn>1</cn></apply>"),
        event(
            "reset",
            r#"useValuesFromTriggerTime="true""#,
            "<apply><gt/><ci>X</ci><cn>20</cn></apply>",
            "",
            &[("X", "<cn>0</cn>")]
        ),
    );
    let sbml = document(&[("X", 0)], &body);
    for t in [1.0, 7.0, 30.0, 100.0] {
        let (counts, values) = one(&sbml, t);
        assert!(counts[0] <= 20, "t = {t}: X = {}", counts[0]);
        assert_eq!(values, vec![2.0 * counts[0] as f64 + 1.0]);
    }
    // X is uniform on 0..=20 in the long run (a renewal cycle of 21 equally long states).
    let net = parse_sbml_general(&sbml, "test.xml").unwrap();
    let stats = run_general_cpu(&net, 4000, 3, &[0.0, 50.0]).unwrap();
    let (mean, sd) = (stats.mean[1][0], stats.sd[1][0]);
    let exact_sd = (440.0f64 / 12.0).sqrt();
    assert!(
        (mean - 10.0).abs() < 4.5 * exact_sd / 4000f64.sqrt(),
        "{mean}"
    );
    assert!((sd - exact_sd).abs() < 0.05 * exact_sd, "{sd}");
    assert_eq!(stats.species, vec!["X".to_string(), "y".to_string()]);
}

#[test]
fn a_non_persistent_delayed_event_is_cancelled_when_its_trigger_falls() {
    // X starts at 1 and decays at rate 100: X > 0 holds only a moment, so the delayed
    // non-persistent assignment p := 1 is cancelled; a persistent twin still runs.
    let trigger = "<apply><gt/><ci>X</ci><cn>0</cn></apply>";
    let delay = format!("<delay>{}</delay>", math("<cn>1</cn>"));
    let events = format!(
        "{}{}",
        event(
            "kept",
            r#"useValuesFromTriggerTime="true""#,
            trigger,
            &delay,
            &[("q", "<cn>1</cn>")]
        ),
        event(
            "dropped",
            r#"useValuesFromTriggerTime="true""#,
            trigger,
            &delay,
            &[("p", "<cn>1</cn>")]
        )
        .replace(
            r#"<trigger initialValue="false" persistent="true">"#,
            r#"<trigger initialValue="false" persistent="false">"#
        )
    );
    let body = format!(
        r#"<listOfParameters><parameter id="p" value="0" constant="false"/><parameter id="q" value="0" constant="false"/></listOfParameters>
        <listOfReactions>{}</listOfReactions>
        <listOfRules><assignmentRule variable="r">{}</assignmentRule><assignmentRule variable="s">{}</assignmentRule></listOfRules>
        <listOfEvents>{events}</listOfEvents>"#,
        reaction("decay", "X", "", "<apply><times/><cn>100</cn><ci>X</ci></apply>"),
        math("<ci>p</ci>"),
        math("<ci>q</ci>"),
    )
    .replace(
        "</listOfParameters>",
        r#"<parameter id="r" constant="false"/><parameter id="s" constant="false"/></listOfParameters>"#,
    );
    let sbml = document(&[("X", 1)], &body);
    let (_, values) = one(&sbml, 5.0);
    assert_eq!(
        values,
        vec![0.0, 1.0],
        "(p, q) through the rules r = p, s = q"
    );
}

#[test]
fn an_event_assigns_a_concentration_in_moles_as_the_nearest_count() {
    // At t = 1 the concentration of C in a 0.25 fL cell is set to 0.3 uM: 45.17 molecules, so
    // 45; the rule c = C then reads 45 molecules back as a concentration.
    let litres = 2.5e-16;
    let body = format!(
        r#"<listOfParameters><parameter id="c" constant="false"/></listOfParameters>
        <listOfRules><assignmentRule variable="c">{}</assignmentRule></listOfRules>
        <listOfEvents>{}</listOfEvents>"#,
        math("<ci>C</ci>"),
        event(
            "set",
            "",
            &format!("<apply><geq/>{TIME}<cn>1</cn></apply>"),
            "",
            &[("C", "<cn>3e-7</cn>")]
        ),
    );
    let sbml = molar_document(litres, &[("C", 0.0)], &body);
    assert_eq!(one(&sbml, 0.5), (vec![0], vec![0.0]));
    let (counts, rules) = one(&sbml, 2.0);
    assert_eq!(counts, [45]);
    let c = 45.0 / (AVOGADRO * litres);
    assert!(
        (rules[0] / c - 1.0).abs() < 1e-12,
        "{} against {c}",
        rules[0]
    );
}

#[test]
fn refusals_name_the_element_and_why() {
    let refused = |body: &str, element: &str, why: &str| {
        let e = parse_sbml_general(&document(&[("X", 0)], body), "test.xml")
            .expect_err(body)
            .to_string();
        assert!(e.contains(element) && e.contains(why), "{e}");
    };
    // A law that reads time: propensities would change between events.
    refused(
        &format!(
            "<listOfReactions>{}</listOfReactions>",
            reaction("in", "", "X", TIME)
        ),
        r#"<reaction id="in">"#,
        "reads time",
    );
    // A rate rule.
    refused(
        &format!(
            r#"<listOfParameters><parameter id="p" value="0" constant="false"/></listOfParameters>
            <listOfRules><rateRule variable="p">{}</rateRule></listOfRules>"#,
            math("<cn>1</cn>")
        ),
        r#"<rateRule variable="p">"#,
        "only assignment rules",
    );
    // A trigger that reads time through a function of it.
    refused(
        &format!(
            "<listOfEvents>{}</listOfEvents>",
            event(
                "e",
                "",
                &format!("<apply><gt/><apply><sin/>{TIME}</apply><cn>0</cn></apply>"),
                "",
                &[("X", "<cn>1</cn>")]
            )
        ),
        r#"<event id="e">"#,
        "comparing it with a value",
    );
    // Rules that read each other.
    refused(
        &format!(
            r#"<listOfParameters><parameter id="a" constant="false"/><parameter id="b" constant="false"/></listOfParameters>
            <listOfRules><assignmentRule variable="a">{}</assignmentRule><assignmentRule variable="b">{}</assignmentRule></listOfRules>"#,
            math("<ci>b</ci>"),
            math("<ci>a</ci>")
        ),
        "assignmentRule",
        "cycle",
    );
}

#[test]
fn a_negative_propensity_stops_the_run_naming_the_reaction_and_time() {
    let body = format!(
        "<listOfReactions>{}</listOfReactions>",
        reaction(
            "bad",
            "",
            "X",
            "<apply><minus/><ci>X</ci><cn>3</cn></apply>"
        )
    );
    let net = parse_sbml_general(&document(&[("X", 0)], &body), "test.xml").unwrap();
    let e = run_general_cpu(&net, 2, 1, &[0.0, 100.0])
        .expect_err("X - 3 < 0 at the start")
        .to_string();
    assert!(
        e.contains("\"bad\"") && e.contains("propensity -") && e.contains("trajectory"),
        "{e}"
    );
}

#[test]
fn every_dsmts_case_reads_as_a_general_network_and_mass_action_ones_unchanged() {
    use petri_model::ssa::dsmts::{dsmts_case, dsmts_case_names};
    let mut general = 0;
    for case in dsmts_case_names() {
        let c = dsmts_case(&case).unwrap();
        let g = c.general_network().unwrap();
        match c.network() {
            Ok(net) => {
                assert!(g.is_mass_action(), "{case}");
                assert_eq!(g.network, net, "{case}");
            }
            Err(_) => {
                assert!(!g.is_mass_action(), "{case}");
                general += 1;
            }
        }
    }
    assert_eq!(general, 8);
}
