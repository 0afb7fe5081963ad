//! An expression of SBML's MathML core (`reactions::math::Expr`) as WGSL in f32, for the
//! general network's kernel (`gpu_general`): one nested WGSL expression, free of side effects,
//! calling `shaders/common/expr.wgsl` where WGSL's built-ins differ from MathML.
//!
//! It computes what `Expr::eval` computes, in f32: arguments in the same order, sums and
//! products folded left to right, booleans as 1 and 0, a piecewise with no piece that holds and
//! no otherwise NaN. A whole constant exponent up to 8 is written as products (exact for the
//! small counts of Hill laws); other powers go through `m_pow`. Where f32 cannot hold a
//! constant it becomes infinity or zero, as the conversion rounds.

use crate::reactions::math::{Expr, Op};

/// What a leaf of the expression reads, as WGSL f32 expressions: species `index` (its count,
/// before the scale), value `i`, and the time.
pub trait Leaves {
    fn species(&self, index: usize) -> String;
    fn value(&self, i: usize) -> String;
    fn time(&self) -> String;
    /// A comparison of time with another argument (`args` holds `Expr::Time` once), where the
    /// leaves compare times their own way (the GPU's fixed-point clock); `None`: as any other.
    fn time_comparison(&self, _op: Op, _args: &[Expr]) -> Option<String> {
        None
    }
}

/// A constant as an exact f32 bit pattern (NaN and infinities through `m_nan`, `m_inf`: WGSL
/// refuses them as constants).
pub fn f32_literal(v: f64) -> String {
    let f = v as f32;
    if f.is_nan() {
        "m_nan()".into()
    } else if f.is_infinite() {
        match f > 0.0 {
            true => "m_inf()".into(),
            false => "(-m_inf())".into(),
        }
    } else {
        format!("bitcast<f32>({:#010x}u)", f.to_bits())
    }
}

/// `e` as a WGSL f32 expression.
pub fn wgsl(e: &Expr, leaves: &dyn Leaves) -> String {
    match e {
        Expr::Num(v) => f32_literal(*v),
        Expr::Species { index, scale } => match *scale == 1.0 {
            true => leaves.species(*index),
            false => format!("({} * {})", leaves.species(*index), f32_literal(*scale)),
        },
        Expr::Value(i) => leaves.value(*i),
        Expr::Time => leaves.time(),
        Expr::Piecewise(pieces, otherwise) => {
            let mut code = match otherwise {
                Some(o) => wgsl(o, leaves),
                None => "m_nan()".into(),
            };
            // The first piece that holds wins: nest from the last one outwards.
            for (value, condition) in pieces.iter().rev() {
                code = format!(
                    "select({code}, {}, {} != 0.0)",
                    wgsl(value, leaves),
                    wgsl(condition, leaves)
                );
            }
            code
        }
        Expr::Apply(op, args) => apply(*op, args, leaves),
    }
}

fn fold(args: &[String], op: &str, empty: &str) -> String {
    match args.len() {
        0 => empty.into(),
        _ => format!("({})", args.join(&format!(" {op} "))),
    }
}

fn call(f: &str, args: &[String]) -> String {
    format!("{f}({})", args.join(", "))
}

fn apply(op: Op, args: &[Expr], leaves: &dyn Leaves) -> String {
    use Op::*;
    let compares = matches!(op, Eq | Neq | Gt | Lt | Geq | Leq);
    if compares && args.len() == 2 && args.contains(&Expr::Time) {
        if let Some(code) = leaves.time_comparison(op, args) {
            return code;
        }
    }
    let a: Vec<String> = args.iter().map(|x| wgsl(x, leaves)).collect();
    let truth = |held: String| format!("m_truth({held})");
    let nonzero = |s: &String| format!("({s} != 0.0)");
    match op {
        Plus => fold(&a, "+", "0.0"),
        Times => fold(&a, "*", "1.0"),
        Minus if a.len() == 1 => format!("(-{})", a[0]),
        Minus => format!("({} - {})", a[0], a[1]),
        Divide => format!("({} / {})", a[0], a[1]),
        Power => power(&args[1], &a[0], &a[1]),
        Root if a.len() == 1 => call("sqrt", &a),
        Root => format!("m_pow({}, 1.0 / {})", a[1], a[0]),
        Exp => call("exp", &a),
        Ln => call("log", &a),
        // log10 x = log2 x / log2 10, as f32.
        Log if a.len() == 1 => format!("(log2({}) * 0.30103)", a[0]),
        Log => format!("(log({}) / log({}))", a[1], a[0]),
        Abs => call("abs", &a),
        Floor => call("floor", &a),
        Ceiling => call("ceil", &a),
        Factorial => call("m_factorial", &a),
        Sin => call("sin", &a),
        Cos => call("cos", &a),
        Tan => call("tan", &a),
        Arcsin => call("asin", &a),
        Arccos => call("acos", &a),
        Arctan => call("atan", &a),
        Sinh => call("sinh", &a),
        Cosh => call("cosh", &a),
        Tanh => call("tanh", &a),
        Max | Min => {
            let (f, empty) = match op {
                Max => ("max", "(-m_inf())"),
                _ => ("min", "m_inf()"),
            };
            let mut it = a.into_iter();
            match it.next() {
                None => empty.into(),
                Some(first) => it.fold(first, |acc, x| format!("{f}({acc}, {x})")),
            }
        }
        Rem => call("m_rem", &a),
        Quotient => format!("trunc({} / {})", a[0], a[1]),
        Eq | Neq | Gt | Lt | Geq | Leq => {
            let sym = match op {
                Eq => "==",
                Neq => "!=",
                Gt => ">",
                Lt => "<",
                Geq => ">=",
                _ => "<=",
            };
            let held: Vec<String> = a
                .windows(2)
                .map(|w| format!("({} {sym} {})", w[0], w[1]))
                .collect();
            truth(held.join(" && "))
        }
        And => match a.is_empty() {
            true => "1.0".into(),
            false => truth(a.iter().map(nonzero).collect::<Vec<_>>().join(" && ")),
        },
        Or => match a.is_empty() {
            true => "0.0".into(),
            false => truth(a.iter().map(nonzero).collect::<Vec<_>>().join(" || ")),
        },
        Xor => {
            let ones: Vec<String> = a
                .iter()
                .map(|s| format!("select(0u, 1u, {})", nonzero(s)))
                .collect();
            truth(format!("(({}) & 1u) == 1u", fold(&ones, "+", "0u")))
        }
        Not => truth(format!("({} == 0.0)", a[0])),
    }
}

/// x^y: a whole constant y with |y| <= 8 as products (and one division for y < 0).
fn power(exponent: &Expr, x: &str, y: &str) -> String {
    if let Expr::Num(n) = exponent {
        if n.fract() == 0.0 && n.abs() <= 8.0 && *n != 0.0 {
            let times = vec![x.to_string(); n.abs() as usize];
            let product = format!("({})", times.join(" * "));
            return match *n > 0.0 {
                true => product,
                false => format!("(1.0 / {product})"),
            };
        }
    }
    format!("m_pow({x}, {y})")
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Names;
    impl Leaves for Names {
        fn species(&self, index: usize) -> String {
            format!("f32(x{index})")
        }
        fn value(&self, i: usize) -> String {
            format!("v{i}")
        }
        fn time(&self) -> String {
            "t".into()
        }
    }

    #[test]
    fn michaelis_menten_and_hill_read_as_wgsl() {
        let x = Expr::Species {
            index: 0,
            scale: 0.5,
        };
        let mm = Expr::Apply(
            Op::Divide,
            vec![
                Expr::Apply(Op::Times, vec![Expr::Value(1), x.clone()]),
                Expr::Apply(Op::Plus, vec![Expr::Value(0), x.clone()]),
            ],
        );
        assert_eq!(
            wgsl(&mm, &Names),
            "((v1 * (f32(x0) * bitcast<f32>(0x3f000000u))) / (v0 + (f32(x0) * bitcast<f32>(0x3f000000u))))"
        );
        let hill = Expr::Apply(Op::Power, vec![Expr::Value(0), Expr::Num(4.0)]);
        assert_eq!(wgsl(&hill, &Names), "(v0 * v0 * v0 * v0)");
        let half = Expr::Apply(Op::Power, vec![Expr::Value(0), Expr::Num(0.5)]);
        assert!(wgsl(&half, &Names).starts_with("m_pow(v0, "));
        assert_eq!(f32_literal(f64::INFINITY), "m_inf()");
        assert_eq!(f32_literal(1e300), "m_inf()");
        assert_eq!(f32_literal(1.0), "bitcast<f32>(0x3f800000u)");
    }
}
