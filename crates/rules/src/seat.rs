//! Seats, and the two compact seat collections the engine uses everywhere.
//!
//! Both collections are `Copy` so that events and state never allocate: the
//! replay benchmark folds millions of events a second.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Number of seats at a sports Mafia table.
pub const SEATS: usize = 10;

/// A seat number, 1 to 10.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct Seat(u8);

impl Seat {
    /// Returns the seat, or `None` outside 1..=10.
    pub const fn new(n: u8) -> Option<Seat> {
        if n >= 1 && n as usize <= SEATS {
            Some(Seat(n))
        } else {
            None
        }
    }

    /// The seat number, 1..=10.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// Zero-based index for per-seat arrays.
    pub const fn index(self) -> usize {
        (self.0 - 1) as usize
    }

    /// The seat with the given zero-based index.
    ///
    /// # Panics
    /// On an index of 10 or more: callers iterate over `0..SEATS`.
    pub fn from_index(i: usize) -> Seat {
        assert!(i < SEATS, "seat index {i} out of range");
        Seat(i as u8 + 1)
    }

    /// The next seat clockwise (10 is followed by 1).
    pub const fn next(self) -> Seat {
        if self.0 as usize == SEATS {
            Seat(1)
        } else {
            Seat(self.0 + 1)
        }
    }

    /// All seats, 1 to 10.
    pub fn all() -> impl Iterator<Item = Seat> {
        (1..=SEATS as u8).map(Seat)
    }
}

/// The error for a seat number outside 1..=10.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("seat {0} is outside 1–10")]
pub struct SeatOutOfRange(pub u8);

impl TryFrom<u8> for Seat {
    type Error = SeatOutOfRange;
    fn try_from(n: u8) -> Result<Self, Self::Error> {
        Seat::new(n).ok_or(SeatOutOfRange(n))
    }
}

impl From<Seat> for u8 {
    fn from(s: Seat) -> u8 {
        s.0
    }
}

impl fmt::Debug for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// An unordered set of seats (a bit mask). Serialized as a sorted array.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SeatSet(u16);

impl SeatSet {
    pub const EMPTY: SeatSet = SeatSet(0);

    pub const fn contains(self, s: Seat) -> bool {
        self.0 & (1 << s.0) != 0
    }
    pub fn insert(&mut self, s: Seat) {
        self.0 |= 1 << s.0;
    }
    pub fn remove(&mut self, s: Seat) {
        self.0 &= !(1 << s.0);
    }
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
    pub const fn union(self, o: SeatSet) -> SeatSet {
        SeatSet(self.0 | o.0)
    }
    pub const fn intersection(self, o: SeatSet) -> SeatSet {
        SeatSet(self.0 & o.0)
    }
    pub const fn difference(self, o: SeatSet) -> SeatSet {
        SeatSet(self.0 & !o.0)
    }
    /// Seats in ascending order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        Seat::all().filter(move |s| self.contains(*s))
    }
    pub fn first(self) -> Option<Seat> {
        self.iter().next()
    }
}

impl FromIterator<Seat> for SeatSet {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Self {
        let mut s = SeatSet::EMPTY;
        for seat in iter {
            s.insert(seat);
        }
        s
    }
}

impl fmt::Debug for SeatSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Serialize for SeatSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for SeatSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<Seat>::deserialize(d)?;
        let set: SeatSet = v.iter().copied().collect();
        if set.len() != v.len() {
            return Err(serde::de::Error::custom("a seat is listed twice"));
        }
        Ok(set)
    }
}

/// An ordered list of distinct seats (nomination order, speaking order).
/// Serialized as an array.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SeatList {
    len: u8,
    seats: [u8; SEATS],
}

impl SeatList {
    pub const EMPTY: SeatList = SeatList {
        len: 0,
        seats: [0; SEATS],
    };

    pub fn len(&self) -> usize {
        self.len as usize
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Appends a seat; a seat already present is ignored.
    pub fn push(&mut self, s: Seat) {
        if !self.contains(s) && self.len() < SEATS {
            self.seats[self.len()] = s.0;
            self.len += 1;
        }
    }
    pub fn remove(&mut self, s: Seat) {
        if let Some(pos) = self.position(s) {
            let len = self.len();
            self.seats.copy_within(pos + 1..len, pos);
            self.len -= 1;
            self.seats[self.len()] = 0;
        }
    }
    pub fn get(&self, i: usize) -> Option<Seat> {
        (i < self.len()).then(|| Seat(self.seats[i]))
    }
    pub fn last(&self) -> Option<Seat> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }
    pub fn position(&self, s: Seat) -> Option<usize> {
        self.seats[..self.len()].iter().position(|&x| x == s.0)
    }
    pub fn contains(&self, s: Seat) -> bool {
        self.position(s).is_some()
    }
    pub fn iter(&self) -> impl Iterator<Item = Seat> + '_ {
        self.seats[..self.len()].iter().map(|&n| Seat(n))
    }
    pub fn to_set(&self) -> SeatSet {
        self.iter().collect()
    }
    /// The members of `set`, kept in this list's order.
    pub fn filtered(&self, set: SeatSet) -> SeatList {
        self.iter().filter(|s| set.contains(*s)).collect()
    }
}

impl FromIterator<Seat> for SeatList {
    fn from_iter<I: IntoIterator<Item = Seat>>(iter: I) -> Self {
        let mut l = SeatList::EMPTY;
        for s in iter {
            l.push(s);
        }
        l
    }
}

impl fmt::Debug for SeatList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Serialize for SeatList {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for SeatList {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Vec::<Seat>::deserialize(d)?;
        let list: SeatList = v.iter().copied().collect();
        if list.len() != v.len() {
            return Err(serde::de::Error::custom("a seat is listed twice"));
        }
        Ok(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_numbers_outside_one_to_ten_are_rejected() {
        assert!(Seat::new(0).is_none());
        assert!(Seat::new(11).is_none());
        assert!(serde_json::from_str::<Seat>("11").is_err());
        assert_eq!(serde_json::from_str::<Seat>("10").unwrap().number(), 10);
    }

    #[test]
    fn seat_list_keeps_order_and_rejects_duplicates_when_parsed() {
        let l: SeatList = serde_json::from_str("[7,2,9]").unwrap();
        assert_eq!(
            l.iter().map(|s| s.number()).collect::<Vec<_>>(),
            vec![7, 2, 9]
        );
        assert!(serde_json::from_str::<SeatList>("[7,7]").is_err());
        let mut l = l;
        l.remove(Seat::new(2).unwrap());
        assert_eq!(serde_json::to_string(&l).unwrap(), "[7,9]");
    }
}
