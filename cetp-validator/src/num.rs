//! JSON numbers compared and divided exactly, whatever mix of `u64`, `i64` and `f64`
//! serde_json parsed them into, and JSON values compared the way JSON Schema compares them
//! (`1` equals `1.0`).

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::fmt::Write as _;

use serde_json::{Number, Value};

/// A JSON number as serde_json holds it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    pub(crate) fn of(n: &Number) -> Num {
        if let Some(u) = n.as_u64() {
            Num::Int(i128::from(u))
        } else if let Some(i) = n.as_i64() {
            Num::Int(i128::from(i))
        } else {
            // serde_json without `arbitrary_precision` holds every other number as a finite f64.
            Num::Float(n.as_f64().unwrap_or(0.0))
        }
    }

    /// Whether JSON Schema counts the number as an integer (`1.0` is one).
    pub(crate) fn is_integer(self) -> bool {
        match self {
            Num::Int(_) => true,
            Num::Float(f) => f.fract() == 0.0,
        }
    }

    fn is_zero(self) -> bool {
        match self {
            Num::Int(i) => i == 0,
            Num::Float(f) => f == 0.0,
        }
    }

    /// Exact order of two numbers.
    pub(crate) fn cmp(self, other: Num) -> Ordering {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => a.cmp(&b),
            (Num::Float(a), Num::Float(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
            (Num::Int(a), Num::Float(b)) => int_cmp_float(a, b),
            (Num::Float(a), Num::Int(b)) => int_cmp_float(b, a).reverse(),
        }
    }
}

/// `int` against `float`, exactly (no rounding of either).
fn int_cmp_float(int: i128, float: f64) -> Ordering {
    // Every integer-valued f64 below 2^127 in magnitude converts to i128 exactly.
    const LIMIT: f64 = 1.7014118346046923e38; // 2^127
    if float >= LIMIT {
        return Ordering::Less;
    }
    if float < -LIMIT {
        return Ordering::Greater;
    }
    let whole = float.trunc();
    match int.cmp(&(whole as i128)) {
        Ordering::Equal => 0.0_f64
            .partial_cmp(&(float - whole))
            .unwrap_or(Ordering::Equal),
        order => order,
    }
}

/// A number as the decimal it is written as: `mantissa × 10^exponent`, sign aside. A float is
/// read as the shortest decimal that parses back to it (`0.1` is one tenth, not the binary
/// fraction nearest to it), so `multipleOf` answers about the numbers as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decimal {
    mantissa: u128,
    exponent: i32,
}

impl Decimal {
    pub(crate) fn of(n: Num) -> Decimal {
        let (mut mantissa, mut exponent) = match n {
            Num::Int(i) => (i.unsigned_abs(), 0),
            Num::Float(f) => {
                // `{:e}` writes the shortest round-trip digits: `1.5e-7`, `3e0`.
                let text = format!("{:e}", f.abs());
                let (digits, exp) = text.split_once('e').unwrap_or((&text, "0"));
                let exp: i32 = exp.parse().unwrap_or(0);
                let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
                let mantissa = format!("{whole}{fraction}").parse().unwrap_or(0);
                let places = i32::try_from(fraction.len()).unwrap_or(0);
                (mantissa, exp - places)
            }
        };
        while mantissa != 0 && mantissa % 10 == 0 {
            mantissa /= 10;
            exponent += 1;
        }
        Decimal { mantissa, exponent }
    }

    /// Whether `self / divisor` is an integer (`divisor` not zero).
    pub(crate) fn is_multiple_of(self, divisor: Decimal) -> bool {
        if self.mantissa == 0 {
            return true;
        }
        if divisor.mantissa == 0 {
            return false;
        }
        let shift = i64::from(self.exponent) - i64::from(divisor.exponent);
        if shift >= 0 {
            // mantissa × 10^shift ≡ 0 (mod divisor.mantissa), without forming the product.
            let m = divisor.mantissa;
            let power = pow_mod(10, shift as u64, m);
            mul_mod(self.mantissa % m, power, m) == 0
        } else {
            // divisor.mantissa × 10^-shift must divide the mantissa; a mantissa has at most
            // 39 digits, so a larger power of ten never does.
            let Ok(places) = u32::try_from(-shift) else {
                return false;
            };
            match 10u128
                .checked_pow(places)
                .and_then(|p| p.checked_mul(divisor.mantissa))
            {
                Some(whole) => self.mantissa % whole == 0,
                None => false,
            }
        }
    }
}

/// `a × b mod m` for `a, b < m`, without overflow.
fn mul_mod(a: u128, b: u128, m: u128) -> u128 {
    if let Some(product) = a.checked_mul(b) {
        return product % m;
    }
    // Double and add: only for divisors above 2^64, which no f64 mantissa reaches.
    let (mut a, mut b, mut result) = (a, b, 0u128);
    while b > 0 {
        if b & 1 == 1 {
            result = add_mod(result, a, m);
        }
        a = add_mod(a, a, m);
        b >>= 1;
    }
    result
}

fn add_mod(a: u128, b: u128, m: u128) -> u128 {
    let (sum, overflow) = a.overflowing_add(b);
    if overflow || sum >= m {
        sum.wrapping_sub(m)
    } else {
        sum
    }
}

fn pow_mod(base: u128, mut exponent: u64, m: u128) -> u128 {
    let mut result = 1 % m;
    let mut base = base % m;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = mul_mod(result, base, m);
        }
        base = mul_mod(base, base, m);
        exponent >>= 1;
    }
    result
}

/// Whether `value` is a multiple of `divisor` (a positive number).
pub(crate) fn is_multiple(value: Num, divisor: Decimal) -> bool {
    value.is_zero() || Decimal::of(value).is_multiple_of(divisor)
}

/// JSON Schema equality: numbers by value, objects whatever their key order.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => Num::of(x).cmp(Num::of(y)) == Ordering::Equal,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|other| json_eq(v, other)))
        }
        _ => a == b,
    }
}

/// Writes `value` so that two values are written alike exactly when [`json_eq`] holds: numbers
/// as their decimal (`1.0` as `1`), object members in key order.
pub(crate) fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Number(n) => {
            let decimal = Decimal::of(Num::of(n));
            let negative = match Num::of(n) {
                Num::Int(i) => i < 0,
                Num::Float(f) => f < 0.0,
            };
            if decimal.mantissa == 0 {
                out.push('0');
            } else {
                if negative {
                    out.push('-');
                }
                let _ = write!(out, "{}e{}", decimal.mantissa, decimal.exponent);
            }
        }
        Value::Array(items) => {
            out.push('[');
            for item in items {
                canonical(item, out);
                out.push(',');
            }
            out.push(']');
        }
        Value::Object(members) => {
            // A heap sort: a few hundred bytes of code where `slice::sort` compiles several
            // KiB for its element type; keys are distinct, so the order is the same.
            let keys = BinaryHeap::from_iter(members.keys()).into_sorted_vec();
            out.push('{');
            for key in keys {
                let _ = write!(out, "{}:", Value::from(key.as_str()));
                canonical(&members[key], out);
                out.push(',');
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn num(v: Value) -> Num {
        Num::of(v.as_number().unwrap())
    }

    #[test]
    fn comparisons_are_exact_across_representations() {
        assert_eq!(num(json!(1)).cmp(num(json!(1.0))), Ordering::Equal);
        assert_eq!(num(json!(-0.0)).cmp(num(json!(0))), Ordering::Equal);
        // 2^53 + 1 is not the float 2^53, which an f64 comparison would say.
        assert_eq!(
            num(json!(9_007_199_254_740_993u64)).cmp(num(json!(9_007_199_254_740_992.0))),
            Ordering::Greater
        );
        assert_eq!(num(json!(2)).cmp(num(json!(1.5))), Ordering::Greater);
        assert_eq!(num(json!(-2)).cmp(num(json!(-1.5))), Ordering::Less);
        assert_eq!(num(json!(u64::MAX)).cmp(num(json!(1e300))), Ordering::Less);
        assert_eq!(
            num(json!(i64::MIN)).cmp(num(json!(-1e300))),
            Ordering::Greater
        );
        assert!(num(json!(1.0)).is_integer() && !num(json!(1.5)).is_integer());
    }

    #[test]
    fn multiple_of_reads_numbers_as_the_decimals_they_are_written_as() {
        let of = |v: Value| Decimal::of(num(v));
        assert!(is_multiple(num(json!(0.3)), of(json!(0.1))));
        assert!(is_multiple(num(json!(1070468.14)), of(json!(0.01))));
        assert!(is_multiple(num(json!(10)), of(json!(2.5))));
        assert!(!is_multiple(num(json!(3)), of(json!(2.5))));
        assert!(!is_multiple(num(json!(3)), of(json!(2))));
        assert!(is_multiple(num(json!(1e300)), of(json!(1e-5))));
        assert!(is_multiple(num(json!(-0.0)), of(json!(7))));
        assert!(!is_multiple(num(json!(0.5)), of(json!(1))));
        assert!(!is_multiple(num(json!(1e-300)), of(json!(1e-5))));
        assert!(is_multiple(num(json!(u64::MAX)), of(json!(5))));
    }

    #[test]
    fn json_equality_ignores_number_representation_and_key_order() {
        assert!(json_eq(
            &json!({"a": [1, 2.0], "b": null}),
            &json!({"b": null, "a": [1.0, 2]})
        ));
        assert!(!json_eq(&json!([1, 2]), &json!([2, 1])));
        assert!(!json_eq(&json!("1"), &json!(1)));
    }
}
