"""OpenLandlord: native Dou Dizhu and Shengji referees, teachers, a small MLX student,
Core ML export and mirrored-seat evaluation."""

__version__ = "0.1.0"
