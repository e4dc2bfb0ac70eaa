//! Points in fixed point: ten-thousandths of a point.
//!
//! Floats would make the standings depend on the order games were added
//! (an incremental sum and a full recompute must agree to the last digit, and
//! the JSON must be byte-identical). Ten-thousandths hold every figure the
//! rulebooks use exactly, including a final's ×1.3 of +0.55 (0.715); only the
//! compensation Ci (a division) is rounded, once, to this unit.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Neg, Sub, SubAssign};

/// Units per point.
pub const UNIT: i64 = 10_000;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(i64);

impl Points {
    pub const ZERO: Points = Points(0);

    /// Hundredths of a point: `Points::c(55)` is +0.55.
    pub const fn c(hundredths: i64) -> Points {
        Points(hundredths * 100)
    }

    /// Raw ten-thousandths.
    pub const fn units(units: i64) -> Points {
        Points(units)
    }

    pub const fn raw(self) -> i64 {
        self.0
    }

    pub fn is_positive(self) -> bool {
        self.0 > 0
    }

    pub fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// The nearest representable value, halves away from zero.
    pub fn from_f64(x: f64) -> Points {
        Points((x * UNIT as f64).round() as i64)
    }

    pub fn to_f64(self) -> f64 {
        self.0 as f64 / UNIT as f64
    }

    /// Multiplied by a stage coefficient.
    pub fn scaled(self, k: Coefficient) -> Points {
        Points(div_round(self.0 * k.0 as i64, Coefficient::ONE.0 as i64))
    }

    /// `self × num / den`, rounded to the unit, halves away from zero.
    pub fn ratio(self, num: i64, den: i64) -> Points {
        Points(div_round(self.0 * num, den))
    }

    pub fn times(self, n: i64) -> Points {
        Points(self.0 * n)
    }
}

fn div_round(n: i64, d: i64) -> i64 {
    let q = n / d;
    let r = n % d;
    if 2 * r.abs() >= d.abs() {
        q + (n.signum() * d.signum())
    } else {
        q
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let a = self.0.unsigned_abs();
        let whole = a / UNIT as u64;
        let frac = a % UNIT as u64;
        if frac == 0 {
            write!(f, "{sign}{whole}")
        } else {
            let s = format!("{frac:04}");
            write!(f, "{sign}{whole}.{}", s.trim_end_matches('0'))
        }
    }
}

impl Add for Points {
    type Output = Points;
    fn add(self, o: Points) -> Points {
        Points(self.0 + o.0)
    }
}

impl Sub for Points {
    type Output = Points;
    fn sub(self, o: Points) -> Points {
        Points(self.0 - o.0)
    }
}

impl Neg for Points {
    type Output = Points;
    fn neg(self) -> Points {
        Points(-self.0)
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, o: Points) {
        self.0 += o.0;
    }
}

impl SubAssign for Points {
    fn sub_assign(&mut self, o: Points) {
        self.0 -= o.0;
    }
}

impl Sum for Points {
    fn sum<I: Iterator<Item = Points>>(it: I) -> Points {
        Points(it.map(|p| p.0).sum())
    }
}

/// As a JSON number (`0.55`), the form people and screens read; parsed back
/// to the nearest unit.
impl Serialize for Points {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.to_f64())
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let x = f64::deserialize(d)?;
        if !x.is_finite() || x.abs() > 1e9 {
            return Err(serde::de::Error::custom("points must be a finite number"));
        }
        Ok(Points::from_f64(x))
    }
}

/// A stage's point coefficient in thousandths (rfm §6.4.9: a final's 1.3 is 1300).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Coefficient(u32);

impl Coefficient {
    pub const ONE: Coefficient = Coefficient(1000);

    pub const fn thousandths(n: u32) -> Coefficient {
        Coefficient(n)
    }

    pub const fn raw(self) -> u32 {
        self.0
    }
}

/// `1`, `1.3`, `0.875`: at most three decimals, in (0, 100] as a
/// deserialized one.
impl std::str::FromStr for Coefficient {
    type Err = String;

    fn from_str(text: &str) -> Result<Coefficient, String> {
        let bad =
            || format!("coefficient {text:?}: give it as 1, 1.3 or 0.875, above 0 and at most 100");
        let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
        if whole.is_empty()
            || frac.len() > 3
            || !whole
                .bytes()
                .chain(frac.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let whole: u32 = whole.parse().map_err(|_| bad())?;
        let frac: u32 = format!("{frac:0<3}").parse().map_err(|_| bad())?;
        match whole.checked_mul(1000).and_then(|w| w.checked_add(frac)) {
            Some(n @ 1..=100_000) => Ok(Coefficient(n)),
            _ => Err(bad()),
        }
    }
}

impl Default for Coefficient {
    fn default() -> Self {
        Coefficient::ONE
    }
}

impl Serialize for Coefficient {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0 as f64 / 1000.0)
    }
}

impl<'de> Deserialize<'de> for Coefficient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let x = f64::deserialize(d)?;
        if !x.is_finite() || x <= 0.0 || x > 100.0 {
            return Err(serde::de::Error::custom(
                "a coefficient is a number in (0, 100]",
            ));
        }
        Ok(Coefficient((x * 1000.0).round() as u32))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_coefficient_is_read_in_thousandths() {
        let read = |t: &str| t.parse::<Coefficient>().map(Coefficient::raw);
        assert_eq!(read("1"), Ok(1000));
        assert_eq!(read("1.3"), Ok(1300));
        assert_eq!(read("0.875"), Ok(875));
        for bad in ["", ".5", "1.2345", "x", "1.x", "-1", "0", "100.001"] {
            assert!(read(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rfm_6_4_9_a_final_best_move_of_0_55_is_0_715() {
        assert_eq!(
            Points::c(55).scaled(Coefficient::thousandths(1300)),
            Points::units(7150)
        );
        assert_eq!(Points::units(7150).to_string(), "0.715");
    }

    #[test]
    fn json_form_is_a_plain_number_and_round_trips() {
        for p in [
            Points::c(55),
            Points::c(-120),
            Points::units(1667),
            Points::ZERO,
        ] {
            let j = serde_json::to_string(&p).unwrap();
            assert_eq!(serde_json::from_str::<Points>(&j).unwrap(), p, "{j}");
        }
        assert_eq!(serde_json::to_string(&Points::c(55)).unwrap(), "0.55");
    }

    #[test]
    fn rounding_is_half_away_from_zero() {
        assert_eq!(Points::units(5000).ratio(1, 3), Points::units(1667));
        assert_eq!(Points::units(-5).ratio(1, 10), Points::units(-1));
        assert_eq!(Points::units(5).ratio(1, 10), Points::units(1));
    }
}
