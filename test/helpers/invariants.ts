// The invariant checks live in src/ (the CLI's --stats runs them too); tests import them here.
export * from '../../src/chunkers/invariants';
