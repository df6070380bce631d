/*
 * BF_TESTONLY marks the prototype of a function that has external linkage
 * only so that a unit test can reach it: production code outside its own
 * file does not call it (tests/check_layers.py, style.layers, holds this
 * from the object files). It expands to nothing; docs/style.md gives the
 * rule.
 */
#ifndef BF_TESTONLY_H
#define BF_TESTONLY_H

#define BF_TESTONLY

#endif
