/*
 * The seed's batching case: a card-fraud model scores transactions of 30
 * features; at 2,000 per second the service gathers 10 ms of them, 20
 * rows, into one (20, 30) tensor and scores it with one matrix multiply
 * per layer instead of 20 separate calls (the lesson's "real-life
 * example"). The lesson's layer is x @ W with W of (30, 16) and a relu;
 * the model here adds the score: 30 -> 16 -> relu -> 1,
 *
 *     score = relu(x W1 + b1) W2 + b2
 *
 * The biases are folded into the weights so that each layer is exactly
 * one GEMM: x gets a constant 1 as its 31st feature and W1 a 31st row
 * (b1); W1 also gets a 17th column that is 1 only in that row, so the
 * hidden layer carries a constant 1 (relu keeps it) that meets b2 in the
 * 17th row of W2.
 *
 * Inputs and weights are small integers from fixed formulas (below, and
 * in docs/schema.md, so a test can recompute them): every intermediate
 * is an integer well below 2^11, exact in fp16 and fp32 with fp32
 * accumulation, so a correct run on any device gives the exact scores.
 *
 *   x[r][f]  = ((r (f + 2) + f) mod 23) mod 7 - 3   r < 20, f < 30
 *   W1[f][j] = (f^2 + 2 j + f j) mod 3 - 1           j < 16
 *   b1[j]    = j mod 4 - 1
 *   W2[j]    = j mod 3 - 1
 *   b2       = 3
 */
#ifndef BF_MLP_H
#define BF_MLP_H

#define MLP_FEATURES 30 /* the seed's transaction features */
#define MLP_HIDDEN 16   /* the lesson's layer: (30, 16) */
#define MLP_OUTPUTS 1   /* one fraud score per row */
/* Rows per batch: 2,000 transactions/s x 10 ms (the seed's figures). */
#define MLP_RATE_PER_S 2000
#define MLP_WINDOW_MS 10
#define MLP_ROWS (MLP_RATE_PER_S * MLP_WINDOW_MS / 1000)

/* Widths as stored, with the biases folded in. */
#define MLP_IN (MLP_FEATURES + 1)
#define MLP_HID (MLP_HIDDEN + 1)

/* Fills x (MLP_ROWS x MLP_IN), w1 (MLP_IN x MLP_HID) and w2 (MLP_HID x
 * MLP_OUTPUTS), row-major, with the formulas above. Pure. */
void mlp_fill(float *x, float *w1, float *w2);

/* The float64 reference: scores[r] (rows x MLP_OUTPUTS) of the rows of x
 * (rows x MLP_IN) through w1, relu, w2, as stored by mlp_fill. Pure. */
void mlp_forward_ref(int rows, const float *x, const float *w1,
		     const float *w2, double *scores);

#endif
