//! Host-side simulated Ethos-U55 for testing the driver without silicon
