/* The batching model's data and reference forward pass; see mlp.h. */
#include "workloads/mlp.h"

#include <string.h>

void mlp_fill(float *x, float *w1, float *w2)
{
	memset(w1, 0, sizeof(*w1) * MLP_IN * MLP_HID);
	for (int r = 0; r < MLP_ROWS; r++) {
		for (int f = 0; f < MLP_FEATURES; f++)
			x[r * MLP_IN + f] =
				(float)((r * (f + 2) + f) % 23 % 7 - 3);
		x[r * MLP_IN + MLP_FEATURES] = 1.0f; /* meets b1 */
	}
	for (int f = 0; f < MLP_FEATURES; f++)
		for (int j = 0; j < MLP_HIDDEN; j++)
			w1[f * MLP_HID + j] = (float)((f * f + 2 * j + f * j) % 3 - 1);
	for (int j = 0; j < MLP_HIDDEN; j++)
		w1[MLP_FEATURES * MLP_HID + j] = (float)(j % 4 - 1); /* b1 */
	/* The hidden layer's constant 1, carried through relu to meet b2. */
	w1[MLP_FEATURES * MLP_HID + MLP_HIDDEN] = 1.0f;
	for (int j = 0; j < MLP_HIDDEN; j++)
		w2[j * MLP_OUTPUTS] = (float)(j % 3 - 1);
	w2[MLP_HIDDEN * MLP_OUTPUTS] = 3.0f; /* b2 */
}

void mlp_forward_ref(int rows, const float *x, const float *w1,
		     const float *w2, double *scores)
{
	for (int r = 0; r < rows; r++) {
		double h[MLP_HID];

		for (int j = 0; j < MLP_HID; j++) {
			double s = 0;

			for (int f = 0; f < MLP_IN; f++)
				s += (double)x[r * MLP_IN + f] *
				     (double)w1[f * MLP_HID + j];
			h[j] = s < 0 ? 0 : s;
		}
		for (int o = 0; o < MLP_OUTPUTS; o++) {
			double s = 0;

			for (int j = 0; j < MLP_HID; j++)
				s += h[j] * (double)w2[j * MLP_OUTPUTS + o];
			scores[r * MLP_OUTPUTS + o] = s;
		}
	}
}
