"""The source tree laid out as microservices and modules, from one walk and the build files."""
