//! The two distributions the workloads need, sampled by inversion of their CDF from one uniform
//! draw each (so a stream's draws stay aligned across platforms and crate versions).
//!
//! **Pareto type II (Lomax)**, parameterised as in ns-2's `RandomVariable/ParetoII` by its mean
//! `m` and shape `a` (`a > 1`): scale `s = m (a - 1)`,
//! `P(X > x) = (1 + x / s)^(-a)` for `x >= 0`, mean `s / (a - 1) = m`, sampled as
//! `X = s (U^(-1/a) - 1)` with `U` uniform on (0, 1]. The support starts at 0; the web workload
//! rounds up (`ceil`) to whole objects and packets, as ns-2's web traffic generator does.
//!
//! **Exponential** with mean `m`: `X = -m ln U`.

use rand::Rng;

/// Uniform on (0, 1]: `gen::<f64>()` is on [0, 1), and 0 would give an infinite sample.
fn unit(rng: &mut impl Rng) -> f64 {
    1.0 - rng.gen::<f64>()
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lomax {
    pub scale: f64,
    pub shape: f64,
}

impl Lomax {
    /// The Lomax distribution with this mean and shape; `shape` must exceed 1 (else the mean
    /// is infinite), which scenario validation checks.
    pub fn from_mean(mean: f64, shape: f64) -> Self {
        debug_assert!(shape > 1.0 && mean > 0.0);
        Lomax { scale: mean * (shape - 1.0), shape }
    }

    pub fn mean(&self) -> f64 {
        self.scale / (self.shape - 1.0)
    }

    pub fn sample(&self, rng: &mut impl Rng) -> f64 {
        self.scale * (unit(rng).powf(-1.0 / self.shape) - 1.0)
    }

    /// The sample rounded up to a whole number, at least 1.
    pub fn sample_count(&self, rng: &mut impl Rng) -> u64 {
        (self.sample(rng).ceil() as u64).max(1)
    }

    /// `P(X > x)`.
    pub fn tail(&self, x: f64) -> f64 {
        (1.0 + x.max(0.0) / self.scale).powf(-self.shape)
    }
}

/// An exponential draw with the given mean.
pub fn exponential(mean: f64, rng: &mut impl Rng) -> f64 {
    -mean * unit(rng).ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_follows_from_mean_and_shape() {
        // ns-2: paretoII(avg * (shape - 1), shape).
        let d = Lomax::from_mean(4.0, 1.5);
        assert_eq!((d.scale, d.mean()), (2.0, 4.0));
        assert_eq!(d.tail(0.0), 1.0);
        // (1 + 2/2)^-1.5 = 2^-1.5
        assert!((d.tail(2.0) - 2f64.powf(-1.5)).abs() < 1e-15);
    }

    #[test]
    fn inversion_hits_the_quantiles() {
        // Median of Lomax: s (2^(1/a) - 1); with U = 0.5 exactly the sample is the median.
        struct Half;
        impl rand::RngCore for Half {
            fn next_u32(&mut self) -> u32 {
                0
            }
            fn next_u64(&mut self) -> u64 {
                1 << 63
            }
            fn fill_bytes(&mut self, _: &mut [u8]) {}
            fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), rand::Error> {
                Ok(())
            }
        }
        let d = Lomax::from_mean(4.0, 1.2);
        let median = 0.8 * (2f64.powf(1.0 / 1.2) - 1.0);
        assert!((d.sample(&mut Half) - median).abs() < 1e-12);
        assert!((exponential(0.5, &mut Half) - 0.5 * 2f64.ln()).abs() < 1e-12);
    }
}
