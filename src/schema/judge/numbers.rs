//! Numbers as JSON Schema reads them: by their mathematical value, exactly.
//!
//! `1` and `1.0` are the same number, and an integer (JSON Schema 2020-12
//! core §4.2.2); bounds compare an integer past 2^53 with a float exactly,
//! not through the float the integer rounds to. `multipleOf` on a fraction
//! is where validators part: the decimal reading (`0.3` is three times
//! `0.1`, as the `jsonschema` crate reads it) and Python's float division
//! (`0.3 / 0.1` is `2.9999999999999996`); a value the readings disagree on
//! is not judged.

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// A JSON number as it was read: a whole number, or a double.
#[derive(Debug, Clone, Copy)]
enum Exact {
    Int(i128),
    Float(f64),
}

fn exact(number: &Number) -> Exact {
    if let Some(n) = number.as_i64() {
        Exact::Int(i128::from(n))
    } else if let Some(n) = number.as_u64() {
        Exact::Int(i128::from(n))
    } else {
        Exact::Float(number.as_f64().unwrap_or(f64::NAN))
    }
}

/// Two numbers in order, exactly.
pub(crate) fn compare(a: &Number, b: &Number) -> Ordering {
    match (exact(a), exact(b)) {
        (Exact::Int(a), Exact::Int(b)) => a.cmp(&b),
        (Exact::Float(a), Exact::Float(b)) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (Exact::Int(a), Exact::Float(b)) => int_float(a, b),
        (Exact::Float(a), Exact::Int(b)) => int_float(b, a).reverse(),
    }
}

/// An integer against a double, exactly.
fn int_float(int: i128, float: f64) -> Ordering {
    if float.is_nan() {
        return Ordering::Equal;
    }
    let floor = float.floor();
    // Beyond i128 either way: the double is the larger or the smaller.
    if floor >= 1.7e38 {
        return Ordering::Less;
    }
    if floor < -1.7e38 {
        return Ordering::Greater;
    }
    match int.cmp(&(floor as i128)) {
        Ordering::Equal if float > floor => Ordering::Less,
        order => order,
    }
}

/// Whether a number has no fraction (`1.0` is an integer in JSON Schema).
pub(crate) fn is_integer(number: &Number) -> bool {
    number.is_i64() || number.is_u64() || number.as_f64().is_some_and(|f| f.fract() == 0.0)
}

/// JSON Schema's equality: numbers by value, arrays item by item, objects
/// whatever their order.
pub(crate) fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => compare(a, b).is_eq(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, a)| b.get(key).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// Whether `number` is a multiple of `divisor` (> 0); `None` when the
/// readings validators use disagree, or cannot tell.
pub(crate) fn multiple_of(number: &Number, divisor: &Number) -> Option<bool> {
    const SAFE: i128 = 1 << 53;
    if let (Exact::Int(n), Exact::Int(d)) = (exact(number), exact(divisor))
        && d > 0
        && d <= SAFE
    {
        return Some(n % d == 0);
    }
    // jsonschema (Python) divides doubles; the `jsonschema` crate reads the
    // decimals, or the doubles exactly where the decimals overflow.
    let python = division(number, divisor)?;
    let rust = decimal(number, divisor).or_else(|| binary(number, divisor))?;
    (python == rust).then_some(python)
}

/// A number as its shortest decimal form: mantissa × 10^exponent.
fn decimal_parts(number: &Number) -> Option<(i128, i32)> {
    match exact(number) {
        Exact::Int(n) => Some((n, 0)),
        Exact::Float(f) if f.is_finite() => {
            // `{:e}` writes the shortest digits that read back as `f`.
            let text = format!("{f:e}");
            let (mantissa, exponent) = text.split_once('e')?;
            let exponent: i32 = exponent.parse().ok()?;
            let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
            let digits: i128 = format!("{whole}{fraction}").parse().ok()?;
            Some((digits, exponent - fraction.len() as i32))
        }
        Exact::Float(_) => None,
    }
}

/// The decimal reading: the numbers as their shortest decimal forms.
fn decimal(number: &Number, divisor: &Number) -> Option<bool> {
    let (n, n_exp) = decimal_parts(number)?;
    let (d, d_exp) = decimal_parts(divisor)?;
    if d == 0 {
        return None;
    }
    if n == 0 {
        return Some(true);
    }
    let shared = n_exp.min(d_exp);
    let scale = |mantissa: i128, exponent: i32| {
        let places = u32::try_from(exponent - shared).ok()?;
        mantissa.checked_mul(10_i128.checked_pow(places)?)
    };
    Some(scale(n, n_exp)? % scale(d, d_exp)? == 0)
}

/// A finite double as odd mantissa × 2^exponent; `None` for zero.
fn binary_parts(f: f64) -> Option<(u64, i32)> {
    if f == 0.0 || !f.is_finite() {
        return None;
    }
    let bits = f.abs().to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    let (mut mantissa, mut exponent) = match exponent {
        0 => (fraction, -1074),
        e => (fraction | (1 << 52), e - 1075),
    };
    let zeros = mantissa.trailing_zeros();
    mantissa >>= zeros;
    exponent += zeros as i32;
    Some((mantissa, exponent))
}

/// The binary reading: the doubles closest to the numbers, exactly.
fn binary(number: &Number, divisor: &Number) -> Option<bool> {
    let whole = |n: &Number| match exact(n) {
        Exact::Int(i) if i.abs() > 1 << 53 => None,
        _ => n.as_f64(),
    };
    let (n, d) = (whole(number)?, whole(divisor)?);
    if n == 0.0 {
        return Some(true);
    }
    let (n_mantissa, n_exp) = binary_parts(n)?;
    let (d_mantissa, d_exp) = binary_parts(d)?;
    Some(n_mantissa % d_mantissa == 0 && n_exp >= d_exp)
}

/// Python's reading: float division for a fractional divisor, the float
/// remainder for a whole one.
fn division(number: &Number, divisor: &Number) -> Option<bool> {
    let (n, d) = (number.as_f64()?, divisor.as_f64()?);
    if matches!(exact(divisor), Exact::Int(_)) {
        return Some(n % d == 0.0);
    }
    let quotient = n / d;
    match quotient.is_finite() {
        true => Some(quotient.fract() == 0.0),
        // Python falls back on exact fractions of the doubles.
        false => binary(number, divisor),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn number(value: Value) -> Number {
        match value {
            Value::Number(n) => n,
            other => panic!("{other}"),
        }
    }

    #[test]
    fn integers_and_floats_compare_exactly() {
        let big = number(json!(9007199254740993u64));
        let float = number(json!(9007199254740992.0));
        assert_eq!(compare(&big, &float), Ordering::Greater);
        assert_eq!(compare(&float, &big), Ordering::Less);
        assert_eq!(
            compare(&number(json!(1)), &number(json!(1.0))),
            Ordering::Equal
        );
        assert_eq!(
            compare(&number(json!(1)), &number(json!(1.5))),
            Ordering::Less
        );
        assert_eq!(
            compare(&number(json!(-1)), &number(json!(-1.5))),
            Ordering::Greater
        );
        assert_eq!(
            compare(&number(json!(u64::MAX)), &number(json!(1e300))),
            Ordering::Less
        );
        assert!(json_eq(
            &json!({"a": [1, {"b": 2}]}),
            &json!({"a": [1.0, {"b": 2.0}]})
        ));
        assert!(!json_eq(&json!([1, 2]), &json!([2, 1])));
        assert!(!json_eq(&json!(true), &json!(1)));
    }

    #[test]
    fn multiples_are_decided_where_the_readings_agree() {
        let of = |n: Value, d: Value| multiple_of(&number(n), &number(d));
        assert_eq!(of(json!(10), json!(5)), Some(true));
        assert_eq!(of(json!(-7), json!(2)), Some(false));
        assert_eq!(of(json!(4.0), json!(2)), Some(true));
        assert_eq!(of(json!(4.5), json!(2)), Some(false));
        assert_eq!(of(json!(1.5), json!(0.5)), Some(true));
        assert_eq!(of(json!(0.0075), json!(0.0001)), Some(true));
        assert_eq!(of(json!(0.00751), json!(0.0001)), Some(false));
        assert_eq!(of(json!(0.35), json!(0.1)), Some(false));
        // 0.3 is three times 0.1 in decimals, not in doubles.
        assert_eq!(of(json!(0.3), json!(0.1)), None);
        // Float division overflows; exact fractions of the doubles decide.
        assert_eq!(of(json!(1e308), json!(0.123456789)), Some(false));
        assert_eq!(of(json!(1e308), json!(0.5)), Some(true));
        assert_eq!(of(json!(0), json!(0.7)), Some(true));
    }
}
