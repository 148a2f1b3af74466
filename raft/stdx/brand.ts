// Owns: branded integer types for Raft indices, terms and node ids. Pure.
// An Index or Term is a non-negative safe integer; the constructors assert it so a NaN or a
// float never reaches the log.
import { assert } from './assert.ts';

export type Index = number & { readonly __brand: 'Index' };
export type Term = number & { readonly __brand: 'Term' };

export function index(value: number): Index {
  assert(Number.isSafeInteger(value) && value >= 0, `index must be a non-negative safe integer, got ${value}`);
  return value as Index;
}

export function term(value: number): Term {
  assert(Number.isSafeInteger(value) && value >= 0, `term must be a non-negative safe integer, got ${value}`);
  return value as Term;
}
