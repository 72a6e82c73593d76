"""PAC verification (Pac-Man): learn the feasible decision vectors of a program with an
(epsilon, delta) guarantee, or find a feasible error."""
