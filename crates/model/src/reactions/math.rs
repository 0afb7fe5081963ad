//! Expressions of SBML's MathML subset (SBML Level 3 core, section 3.4): kinetic laws, rules,
//! initial assignments and event triggers, delays and assignments, read into `Expr` and
//! evaluated in f64. Booleans are 1 and 0, as a relational result is used in arithmetic in
//! `piecewise`. Function definitions are expanded where they are called, so an `Expr` holds only
//! numbers, symbols of the model, time and operators.

use std::collections::BTreeSet;

/// An expression over a model's state.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Num(f64),
    /// A species in a law: its count times `scale` (1 for an amount, 1/size for a
    /// concentration).
    Species {
        index: usize,
        scale: f64,
    },
    /// A model value: a parameter or a compartment size (an index into the values vector).
    Value(usize),
    /// The simulation time (`csymbol` time).
    Time,
    Apply(Op, Vec<Expr>),
    /// (value, condition) pairs, the first whose condition holds, else `otherwise` (NaN if
    /// none: SBML leaves it undefined, and a NaN propensity stops the trajectory).
    Piecewise(Vec<(Expr, Expr)>, Option<Box<Expr>>),
}

/// MathML operators of the SBML core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Plus,
    Minus,
    Times,
    Divide,
    Power,
    Root,
    Exp,
    Ln,
    Log,
    Abs,
    Floor,
    Ceiling,
    Factorial,
    Sin,
    Cos,
    Tan,
    Arcsin,
    Arccos,
    Arctan,
    Sinh,
    Cosh,
    Tanh,
    Max,
    Min,
    Rem,
    Quotient,
    Eq,
    Neq,
    Gt,
    Lt,
    Geq,
    Leq,
    And,
    Or,
    Xor,
    Not,
}

impl Op {
    /// The operator of a MathML element name, if it is one of the core's.
    pub fn from_tag(tag: &str) -> Option<Op> {
        use Op::*;
        Some(match tag {
            "plus" => Plus,
            "minus" => Minus,
            "times" => Times,
            "divide" => Divide,
            "power" => Power,
            "root" => Root,
            "exp" => Exp,
            "ln" => Ln,
            "log" => Log,
            "abs" => Abs,
            "floor" => Floor,
            "ceiling" => Ceiling,
            "factorial" => Factorial,
            "sin" => Sin,
            "cos" => Cos,
            "tan" => Tan,
            "arcsin" => Arcsin,
            "arccos" => Arccos,
            "arctan" => Arctan,
            "sinh" => Sinh,
            "cosh" => Cosh,
            "tanh" => Tanh,
            "max" => Max,
            "min" => Min,
            "rem" => Rem,
            "quotient" => Quotient,
            "eq" => Eq,
            "neq" => Neq,
            "gt" => Gt,
            "lt" => Lt,
            "geq" => Geq,
            "leq" => Leq,
            "and" => And,
            "or" => Or,
            "xor" => Xor,
            "not" => Not,
            _ => return None,
        })
    }

    /// The number of arguments allowed: (least, most).
    pub fn arity(self) -> (usize, usize) {
        use Op::*;
        match self {
            Plus | Times | And | Or | Xor | Max | Min => (0, usize::MAX),
            Minus => (1, 2),
            Eq | Neq | Gt | Lt | Geq | Leq => (2, usize::MAX),
            Divide | Power | Rem | Quotient => (2, 2),
            // `root` and `log` take an optional degree or logbase, read as a first argument.
            Root | Log => (1, 2),
            _ => (1, 1),
        }
    }
}

/// What an expression is evaluated over.
pub struct State<'a> {
    pub counts: &'a [f64],
    pub values: &'a [f64],
    pub time: f64,
}

fn truth(held: bool) -> f64 {
    if held {
        1.0
    } else {
        0.0
    }
}

impl Expr {
    pub fn eval(&self, s: &State) -> f64 {
        match self {
            Expr::Num(v) => *v,
            Expr::Species { index, scale } => s.counts[*index] * scale,
            Expr::Value(i) => s.values[*i],
            Expr::Time => s.time,
            Expr::Piecewise(pieces, otherwise) => {
                for (value, condition) in pieces {
                    if condition.eval(s) != 0.0 {
                        return value.eval(s);
                    }
                }
                otherwise.as_ref().map_or(f64::NAN, |e| e.eval(s))
            }
            Expr::Apply(op, args) => apply(*op, args, s),
        }
    }

    /// The first value at `s`, of the expression or one of its parts, that is finite and not
    /// zero but outside f32's normal range (below 1.2e-38 or above 3.4e38 in magnitude): in
    /// the GPU's f32 kernel it would flush to zero or overflow where f64 keeps it.
    pub fn outside_f32(&self, s: &State) -> Option<f64> {
        let parts: Vec<&Expr> = match self {
            Expr::Apply(_, args) => args.iter().collect(),
            Expr::Piecewise(pieces, otherwise) => pieces
                .iter()
                .flat_map(|(v, c)| [v, c])
                .chain(otherwise.as_deref())
                .collect(),
            Expr::Num(_) | Expr::Species { .. } | Expr::Value(_) | Expr::Time => Vec::new(),
        };
        if let Some(v) = parts.iter().find_map(|p| p.outside_f32(s)) {
            return Some(v);
        }
        let v = self.eval(s);
        let a = v.abs();
        let outside = a < f32::MIN_POSITIVE as f64 || a > f32::MAX as f64;
        (v.is_finite() && a != 0.0 && outside).then_some(v)
    }

    /// The species and values the expression reads.
    pub fn reads(&self, species: &mut BTreeSet<usize>, values: &mut BTreeSet<usize>) {
        match self {
            Expr::Species { index, .. } => {
                species.insert(*index);
            }
            Expr::Value(i) => {
                values.insert(*i);
            }
            Expr::Num(_) | Expr::Time => {}
            Expr::Apply(_, args) => args.iter().for_each(|a| a.reads(species, values)),
            Expr::Piecewise(pieces, otherwise) => {
                for (v, c) in pieces {
                    v.reads(species, values);
                    c.reads(species, values);
                }
                if let Some(o) = otherwise {
                    o.reads(species, values);
                }
            }
        }
    }

    /// Whether the expression reads the time.
    pub fn reads_time(&self) -> bool {
        match self {
            Expr::Time => true,
            Expr::Num(_) | Expr::Species { .. } | Expr::Value(_) => false,
            Expr::Apply(_, args) => args.iter().any(Expr::reads_time),
            Expr::Piecewise(pieces, otherwise) => {
                pieces.iter().any(|(v, c)| v.reads_time() || c.reads_time())
                    || otherwise.as_ref().is_some_and(|o| o.reads_time())
            }
        }
    }

    /// The expression with every `Value(i)` for which `value_of(i)` gives an expression replaced
    /// by it (assignment rules substituted into the expressions that read their variables).
    pub fn substitute(&self, value_of: &dyn Fn(usize) -> Option<Expr>) -> Expr {
        match self {
            Expr::Value(i) => value_of(*i).unwrap_or(Expr::Value(*i)),
            Expr::Num(_) | Expr::Species { .. } | Expr::Time => self.clone(),
            Expr::Apply(op, args) => {
                Expr::Apply(*op, args.iter().map(|a| a.substitute(value_of)).collect())
            }
            Expr::Piecewise(pieces, otherwise) => Expr::Piecewise(
                pieces
                    .iter()
                    .map(|(v, c)| (v.substitute(value_of), c.substitute(value_of)))
                    .collect(),
                otherwise.as_ref().map(|o| Box::new(o.substitute(value_of))),
            ),
        }
    }
}

/// Whether `time` enters `e` only as one side of a comparison whose other side does not read
/// time (`time >= 25`, `and(gt(time, 10), gt(X, 5))`). Between reaction events such an
/// expression can change only at the compared values, so the first time it turns true is found
/// exactly (`comparison_times`).
pub fn time_enters_by_comparison(e: &Expr) -> bool {
    match e {
        Expr::Time => false,
        Expr::Num(_) | Expr::Species { .. } | Expr::Value(_) => true,
        Expr::Apply(Op::Eq | Op::Neq | Op::Gt | Op::Lt | Op::Geq | Op::Leq, args)
            if args.len() == 2 && args.contains(&Expr::Time) =>
        {
            args.iter().all(|a| *a == Expr::Time || !a.reads_time())
        }
        Expr::Apply(_, args) => args.iter().all(time_enters_by_comparison),
        Expr::Piecewise(pieces, otherwise) => {
            pieces
                .iter()
                .all(|(v, c)| time_enters_by_comparison(v) && time_enters_by_comparison(c))
                && otherwise
                    .as_ref()
                    .is_none_or(|o| time_enters_by_comparison(o))
        }
    }
}

/// The values `time` is compared with in `e` (an expression for which
/// `time_enters_by_comparison` holds), evaluated in `s`.
pub fn comparison_times(e: &Expr, s: &State, out: &mut Vec<f64>) {
    let mut compared = Vec::new();
    time_compared_with(e, &mut compared);
    out.extend(compared.into_iter().map(|c| c.eval(s)));
}

/// The arguments `time` is compared with in `e` (the other side of each `time op x`).
pub fn time_compared_with<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
    match e {
        Expr::Apply(Op::Eq | Op::Neq | Op::Gt | Op::Lt | Op::Geq | Op::Leq, args)
            if args.len() == 2 && args.contains(&Expr::Time) =>
        {
            out.extend(args.iter().filter(|a| **a != Expr::Time));
        }
        Expr::Apply(_, args) => args.iter().for_each(|a| time_compared_with(a, out)),
        Expr::Piecewise(pieces, otherwise) => {
            for (v, c) in pieces {
                time_compared_with(v, out);
                time_compared_with(c, out);
            }
            if let Some(o) = otherwise {
                time_compared_with(o, out);
            }
        }
        _ => {}
    }
}

fn apply(op: Op, args: &[Expr], s: &State) -> f64 {
    use Op::*;
    let arg = |i: usize| args[i].eval(s);
    let one = || arg(0);
    match op {
        Plus => args.iter().map(|a| a.eval(s)).sum(),
        Times => args.iter().map(|a| a.eval(s)).product(),
        Minus if args.len() == 1 => -one(),
        Minus => arg(0) - arg(1),
        Divide => arg(0) / arg(1),
        Power => arg(0).powf(arg(1)),
        Root if args.len() == 1 => one().sqrt(),
        Root => arg(1).powf(1.0 / arg(0)),
        Exp => one().exp(),
        Ln => one().ln(),
        Log if args.len() == 1 => one().log10(),
        Log => arg(1).ln() / arg(0).ln(),
        Abs => one().abs(),
        Floor => one().floor(),
        Ceiling => one().ceil(),
        Factorial => {
            let n = one();
            match n >= 0.0 && n.fract() == 0.0 {
                true => (1..=n.min(171.0) as u64).map(|k| k as f64).product(),
                false => f64::NAN,
            }
        }
        Sin => one().sin(),
        Cos => one().cos(),
        Tan => one().tan(),
        Arcsin => one().asin(),
        Arccos => one().acos(),
        Arctan => one().atan(),
        Sinh => one().sinh(),
        Cosh => one().cosh(),
        Tanh => one().tanh(),
        Max => args
            .iter()
            .map(|a| a.eval(s))
            .fold(f64::NEG_INFINITY, f64::max),
        Min => args.iter().map(|a| a.eval(s)).fold(f64::INFINITY, f64::min),
        Rem => arg(0) % arg(1),
        Quotient => (arg(0) / arg(1)).trunc(),
        Eq | Neq | Gt | Lt | Geq | Leq => {
            let held = |a: f64, b: f64| match op {
                Eq => a == b,
                Neq => a != b,
                Gt => a > b,
                Lt => a < b,
                Geq => a >= b,
                _ => a <= b,
            };
            let values: Vec<f64> = args.iter().map(|a| a.eval(s)).collect();
            truth(values.windows(2).all(|w| held(w[0], w[1])))
        }
        And => truth(args.iter().all(|a| a.eval(s) != 0.0)),
        Or => truth(args.iter().any(|a| a.eval(s) != 0.0)),
        Xor => truth(args.iter().filter(|a| a.eval(s) != 0.0).count() % 2 == 1),
        Not => truth(one() == 0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(v: f64) -> Expr {
        Expr::Num(v)
    }

    fn ap(op: Op, args: Vec<Expr>) -> Expr {
        Expr::Apply(op, args)
    }

    fn eval(e: &Expr) -> f64 {
        e.eval(&State {
            counts: &[10.0, 4.0],
            values: &[0.5, 2.0],
            time: 3.0,
        })
    }

    #[test]
    fn arithmetic_follows_mathml() {
        let x = Expr::Species {
            index: 0,
            scale: 1.0,
        };
        // Michaelis-Menten: Vmax S / (Km + S) with Vmax = values[1], Km = values[0].
        let mm = ap(
            Op::Divide,
            vec![
                ap(Op::Times, vec![Expr::Value(1), x.clone()]),
                ap(Op::Plus, vec![Expr::Value(0), x.clone()]),
            ],
        );
        assert_eq!(eval(&mm), 2.0 * 10.0 / 10.5);
        assert_eq!(eval(&ap(Op::Minus, vec![x.clone()])), -10.0);
        assert!((eval(&ap(Op::Root, vec![num(3.0), num(27.0)])) - 3.0).abs() < 1e-15);
        assert_eq!(eval(&ap(Op::Root, vec![num(16.0)])), 4.0);
        assert_eq!(eval(&ap(Op::Log, vec![num(2.0), num(8.0)])), 3.0);
        assert_eq!(eval(&ap(Op::Log, vec![num(100.0)])), 2.0);
        assert_eq!(eval(&ap(Op::Factorial, vec![num(5.0)])), 120.0);
        assert!(eval(&ap(Op::Factorial, vec![num(-1.0)])).is_nan());
        assert_eq!(eval(&ap(Op::Quotient, vec![num(-7.0), num(2.0)])), -3.0);
        assert_eq!(eval(&ap(Op::Rem, vec![num(-7.0), num(2.0)])), -1.0);
        assert_eq!(eval(&ap(Op::Plus, vec![])), 0.0);
        assert_eq!(eval(&ap(Op::Times, vec![])), 1.0);
        assert_eq!(eval(&Expr::Time), 3.0);
    }

    #[test]
    fn relations_and_logic_are_one_or_zero() {
        let t = Expr::Time;
        assert_eq!(eval(&ap(Op::Geq, vec![t.clone(), num(3.0)])), 1.0);
        assert_eq!(eval(&ap(Op::Gt, vec![t.clone(), num(3.0)])), 0.0);
        // A chain: 1 < 2 < time is true, 1 < 4 < time is not.
        assert_eq!(eval(&ap(Op::Lt, vec![num(1.0), num(2.0), t.clone()])), 1.0);
        assert_eq!(eval(&ap(Op::Lt, vec![num(1.0), num(4.0), t.clone()])), 0.0);
        assert_eq!(eval(&ap(Op::Xor, vec![num(1.0), num(1.0), num(1.0)])), 1.0);
        assert_eq!(eval(&ap(Op::Not, vec![num(0.0)])), 1.0);
        let pw = Expr::Piecewise(
            vec![(num(7.0), ap(Op::Lt, vec![t.clone(), num(1.0)]))],
            Some(Box::new(num(9.0))),
        );
        assert_eq!(eval(&pw), 9.0);
        assert!(eval(&Expr::Piecewise(vec![], None)).is_nan());
    }

    #[test]
    fn reads_and_substitution_follow_the_symbols() {
        let e = ap(
            Op::Plus,
            vec![
                Expr::Species {
                    index: 1,
                    scale: 1.0,
                },
                Expr::Value(0),
            ],
        );
        let (mut s, mut v) = (BTreeSet::new(), BTreeSet::new());
        e.reads(&mut s, &mut v);
        assert_eq!((s, v), (BTreeSet::from([1]), BTreeSet::from([0])));
        assert!(!e.reads_time());
        let twice_x = ap(
            Op::Times,
            vec![
                num(2.0),
                Expr::Species {
                    index: 0,
                    scale: 1.0,
                },
            ],
        );
        let f = e.substitute(&|i| (i == 0).then(|| twice_x.clone()));
        assert_eq!(eval(&f), 4.0 + 20.0);
    }
}
