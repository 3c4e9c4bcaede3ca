"""Confidence intervals of accuracies (95 % by default)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

#: z of a two-sided 95 % interval (Φ⁻¹(0.975)).
Z95 = 1.959963984540054


def wilson_interval(passes: npt.ArrayLike, n: npt.ArrayLike, z: float = Z95
                    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Wilson score interval of a proportion, elementwise (NaN where n = 0).

    Unlike the normal (Wald) interval it stays inside [0, 1] and keeps its coverage near
    0 % and 100 %, where test-suite accuracies often are (Brown, Cai & DasGupta 2001). The
    same values as ``statsmodels.stats.proportion.proportion_confint(method="wilson")``.
    """
    x = np.asarray(passes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        phat = x / m
        denominator = 1 + z * z / m
        centre = (phat + z * z / (2 * m)) / denominator
        half = z * np.sqrt(phat * (1 - phat) / m + z * z / (4 * m * m)) / denominator
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def macro_interval(group_passes: npt.ArrayLike, group_sizes: npt.ArrayLike, z: float = Z95
                   ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Normal interval of a macro-average from its groups (stratified variance).

    Args:
        group_passes: Groups × systems, passes of each system in each group.
        group_sizes: Items per group.

    Returns:
        (lower, upper) per system: m ± z sqrt((1/G²) Σ_g p_g (1 − p_g) / n_g), in [0, 1].
    """
    x = np.asarray(group_passes, dtype=np.float64)
    sizes = np.asarray(group_sizes, dtype=np.float64)[:, None]
    accuracy = x / sizes
    groups = x.shape[0]
    mean = accuracy.mean(axis=0)
    half = z * np.sqrt((accuracy * (1 - accuracy) / sizes).sum(axis=0)) / groups
    return np.clip(mean - half, 0.0, 1.0), np.clip(mean + half, 0.0, 1.0)


__all__ = ["Z95", "macro_interval", "wilson_interval"]
