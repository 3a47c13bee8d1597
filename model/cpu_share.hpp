// The CPU share of the asynchronous hybrid LU (async-calu §4).
#pragma once

namespace hetlu::model {

// Block columns d the CPUs should own at step K so that they finish their panel and update when
// the device finishes its update:
//   d = (P g1 N_K + g2)/(P g1 + g2) - (W_panel/W_update) g2/(P g1 + g2)
// cpu_rate = P g1 (all cores), device_rate = g2, in the same unit; block_columns_left = N_K;
// panel_to_update_work = W_panel / W_update for one block column.
double cpu_block_columns(double cpu_rate, double device_rate, double block_columns_left, double panel_to_update_work);

// The asymptotic share d / N_K = P g1 / (P g1 + g2), independent of the matrix size.
double cpu_fraction(double cpu_rate, double device_rate);

// The same from datasheet peaks, scaled by the realistic efficiencies of the paper (0.8, 0.9).
double cpu_fraction_from_peaks(double cpu_peak, double device_peak, double cpu_efficiency = 0.8,
                               double device_efficiency = 0.9);

}  // namespace hetlu::model
