"""Active learning of DFAs: teachers, the query layer, L*, KV, L#, lazy learning."""

from .kv import KV
from .lazy import LEARNERS, LearningResult, learn, make_learner
from .learner import Learner, LearningError, MembershipOracle
from .lsharp import LSharp
from .lstar import LStar
from .queries import CacheEntry, QueryCache, QueryLayer, QueryStats, default_bound_independence
from .teacher import DFATeacher, Teacher, TeacherBase, Word

__all__ = [
    "KV", "LEARNERS", "LSharp", "LStar", "CacheEntry", "DFATeacher", "Learner", "LearningError",
    "LearningResult", "MembershipOracle", "QueryCache", "QueryLayer", "QueryStats", "Teacher", "TeacherBase",
    "Word", "default_bound_independence", "learn", "make_learner",
]
