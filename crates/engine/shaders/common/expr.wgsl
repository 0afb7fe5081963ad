// Functions of SBML's MathML core in f32 that WGSL lacks or leaves undefined where MathML is
// not: code generated from a model's expressions (crates/model/src/ssa/gpu_expr.rs) calls
// them. Each follows `Expr::eval` (crates/model/src/reactions/math.rs), the f64 reference.
// NaN and infinity come from private variables: a constant NaN or infinity is a shader
// creation error in WGSL.

var<private> M_NAN_BITS: u32 = 0x7fc00000u;
var<private> M_INF_BITS: u32 = 0x7f800000u;

fn m_nan() -> f32 {
    return bitcast<f32>(M_NAN_BITS);
}

fn m_inf() -> f32 {
    return bitcast<f32>(M_INF_BITS);
}

// 0! ..= 34! in f32 (35! overflows it).
var<private> M_FACTORIALS: array<f32, 35> = array<f32, 35>(
    1.0, 1.0, 2.0, 6.0, 24.0, 120.0, 720.0, 5040.0, 40320.0, 362880.0, 3628800.0, 39916800.0,
    479001600.0, 6227020800.0, 87178291200.0, 1307674368000.0, 20922789888000.0,
    355687428096000.0, 6402373705728000.0, 121645100408832000.0, 2432902008176640000.0,
    51090942171709440000.0, 1.1240007e21, 2.5852017e22, 6.204484e23, 1.551121e25,
    4.0329146e26, 1.0888869e28, 3.0488834e29, 8.841762e30, 2.6525286e32, 8.2228387e33,
    2.6313084e35, 8.683318e36, 2.952328e38,
);

// x^y as C's pow: exact 1 for y = 0, a negative base only with a whole exponent, 0^y = 0 for
// y > 0 and infinity for y < 0. WGSL's pow is undefined for x < 0 and for x = 0.
fn m_pow(x: f32, y: f32) -> f32 {
    if y == 0.0 {
        return 1.0;
    }
    if x == 0.0 {
        return select(m_inf(), 0.0, y > 0.0);
    }
    let whole = y == floor(y);
    if x < 0.0 && !whole {
        return m_nan();
    }
    let r = pow(abs(x), y);
    // An odd whole exponent keeps the sign (beyond 2^24 every f32 is even).
    let odd = whole && abs(y) < 16777216.0 && (i32(abs(y)) & 1) == 1;
    return select(r, -r, x < 0.0 && odd);
}

// n! for whole n >= 0, infinity past 34, NaN otherwise.
fn m_factorial(n: f32) -> f32 {
    if !(n >= 0.0) || n != floor(n) {
        return m_nan();
    }
    if n > 34.0 {
        return m_inf();
    }
    return M_FACTORIALS[u32(n)];
}

// Truncated remainder, as Rust's % (sign of x): x - y trunc(x / y).
fn m_rem(x: f32, y: f32) -> f32 {
    return x - y * trunc(x / y);
}

fn m_truth(held: bool) -> f32 {
    return select(0.0, 1.0, held);
}
